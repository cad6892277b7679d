// Package logtest is a log sink for tests that read what the code under
// test logs while it is still running.
package logtest

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer safe for a logger writing and a test reading
// at the same time.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

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
