package gname

import (
	"context"
	"time"

	"github.com/zoneprice/zoneprice/ingest"
)

// format is the document as the package comment's Fields list it: a
// name ending in "?" may be absent (read where present, ignored, or an
// error envelope's). The runner reports a document that drifted from it
// (ingest.Drift).
func format() *ingest.Shape {
	row := ingest.Object(map[string]*ingest.Shape{
		"hz": ingest.Scalar(), "zcjg": ingest.Scalar(), "xfjg": ingest.Scalar(), "zrjg": ingest.Scalar(),
	})
	return ingest.Object(map[string]*ingest.Shape{
		"code": ingest.Scalar(), "msg": ingest.Scalar(),
		"data": ingest.Object(map[string]*ingest.Shape{"ymjg": ingest.Array(row)}),
	})
}

// Parse reads a saved response as parse does, with its drift from
// format (the first page, where body holds several).
func Parse(body []byte, observed time.Time) (*ingest.List, error) {
	list, err := parse(body, observed)
	return ingest.CheckFormat(format(), ingest.FirstOf(body), list, err)
}

// Fetch implements ingest.Source: it reads every page (fetchPages), and
// checks the first one's format.
func (s *Source) Fetch(ctx context.Context) (*ingest.List, error) {
	return ingest.CheckFirstPage(format(), func(first *[]byte) (*ingest.List, error) { return s.fetchPages(ctx, first) })
}
