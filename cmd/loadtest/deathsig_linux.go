package main

import (
	"os/exec"
	"syscall"
)

// setDeathSignal makes the child get SIGTERM if this process dies first,
// so an interrupted run leaves no server behind.
func setDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
