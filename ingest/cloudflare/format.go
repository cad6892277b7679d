package cloudflare

import "github.com/zoneprice/zoneprice/ingest"

// format is the document as the package comment's Fields list it: a
// name ending in "?" may be absent (read where present, ignored, or an
// error envelope's). The runner reports a document that drifted from it
// (ingest.Drift).
func format() *ingest.Shape {
	entry := ingest.Object(map[string]*ingest.Shape{
		"registration": ingest.Scalar(), "renewal": ingest.Scalar(), "currency?": ingest.Scalar(), "updatedAt?": nil,
	})
	return ingest.Object(map[string]*ingest.Shape{"*": entry, "error?": nil, "message?": nil})
}
