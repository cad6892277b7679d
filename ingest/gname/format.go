package gname

import "github.com/zoneprice/zoneprice/ingest"

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
