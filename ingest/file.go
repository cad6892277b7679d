package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"
)

// ParseFunc reads one saved response of a source's endpoint into a list, as
// the source's own Fetch would.
type ParseFunc func(body []byte, observed time.Time) (*List, error)

// SavedPages splits a paged source's saved response into its pages: one
// page, or a JSON array of every page in order. what names the list in
// an error ("gname price list").
func SavedPages(body []byte, what string) ([]json.RawMessage, error) {
	t := bytes.TrimSpace(body)
	if len(t) == 0 || t[0] != '[' {
		return []json.RawMessage{body}, nil
	}
	var pages []json.RawMessage
	if err := json.Unmarshal(t, &pages); err != nil {
		return nil, fmt.Errorf("%s: saved pages do not decode: %w", what, err)
	}
	if len(pages) == 0 {
		return nil, errors.New(what + ": no saved pages")
	}
	return pages, nil
}

// FileSource replays a saved response: a price list downloaded by hand, or
// kept from a fetch, parsed by its source's own parser and published under
// the source's name, exactly as a live fetch would be. The file is read
// again on every fetch.
type FileSource struct {
	name, path string
	parse      ParseFunc
	now        func() time.Time
	// About, when set, is the live source the file is a saved response
	// of, which describes it (Describe).
	About Describer
}

var (
	_ Source    = (*FileSource)(nil)
	_ Describer = (*FileSource)(nil)
)

// NewFileSource returns a source named name reading path with parse.
func NewFileSource(name, path string, parse ParseFunc, now func() time.Time) *FileSource {
	return &FileSource{name: name, path: path, parse: parse, now: now}
}

// Name implements Source.
func (s *FileSource) Name() string { return s.name }

// Describe implements Describer: what the live source states, or nothing
// without About.
func (s *FileSource) Describe() Description {
	if s.About == nil {
		return Description{}
	}
	return s.About.Describe()
}

// Fetch implements Source.
func (s *FileSource) Fetch(ctx context.Context) (*List, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	body, err := os.ReadFile(s.path)
	if err != nil {
		return nil, err
	}
	list, err := s.parse(body, s.now())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.path, err)
	}
	return list, nil
}
