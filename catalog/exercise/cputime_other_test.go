//go:build !linux

package exercise

import "time"

// threadCPU and processCPU are measured on Linux only (see
// cputime_linux_test.go): elsewhere the benchmarks report wall time alone.
func threadCPU() (time.Duration, bool)  { return 0, false }
func processCPU() (time.Duration, bool) { return 0, false }
