//go:build !linux

package main

import "os/exec"

// setDeathSignal does nothing where there is no parent-death signal; the
// command measures Linux only (/proc, taskset) but builds everywhere.
func setDeathSignal(*exec.Cmd) {}
