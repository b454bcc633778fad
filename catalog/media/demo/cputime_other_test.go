//go:build !unix

package demo

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
