// Package testlog is a log destination for tests: servers write to it from
// their own goroutines while the test reads what was logged.
package testlog

import (
	"strings"
	"sync"
)

// Buffer collects log output; it is safe for concurrent use.
type Buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

// Write appends p.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
