package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// pinnedEnv marks a process that pinSelf has re-executed; its value is
// the core list it was pinned to.
const pinnedEnv = "EXERCISEDB_LOADTEST_PINNED"

// pinSelf re-executes this process under taskset -c cpus, unless it runs
// so already; it returns only in that case or on an error. Re-executing
// (rather than sched_setaffinity from inside) pins every thread, including
// those the Go runtime has started already, and lets the runtime size
// GOMAXPROCS to the one core.
func pinSelf(cpus string, args []string) error {
	if os.Getenv(pinnedEnv) == cpus {
		return nil
	}
	if runtime.GOOS != "linux" {
		return errors.New("pinning needs Linux and taskset: use -no-pin")
	}
	if runtime.NumCPU() < 2 {
		return fmt.Errorf("pinning needs two cores, this process may use %d: use -no-pin", runtime.NumCPU())
	}
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		return fmt.Errorf("taskset (util-linux) not found: install it or use -no-pin")
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	argv := append([]string{"taskset", "-c", cpus, self}, args...)
	return syscall.Exec(taskset, argv, append(os.Environ(), pinnedEnv+"="+cpus))
}
