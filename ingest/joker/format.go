package joker

import "github.com/zoneprice/zoneprice/ingest"

// format is the document as the package comment's Fields list it: a
// name ending in "?" may be absent (read where present, ignored, or an
// error envelope's). The runner reports a document that drifted from it
// (ingest.Drift).
func format() *ingest.Shape {
	operation := ingest.Object(map[string]*ingest.Shape{
		"total": ingest.Object(map[string]*ingest.Shape{"display_total": ingest.Scalar(), "currency": ingest.Scalar()}),
	})
	entry := ingest.Object(map[string]*ingest.Shape{"registration": operation, "renewal": operation, "transfer": operation})
	domains := ingest.Object(map[string]*ingest.Shape{"*": entry})
	return ingest.Object(map[string]*ingest.Shape{
		"result": ingest.Object(map[string]*ingest.Shape{
			"pricelist": ingest.Object(map[string]*ingest.Shape{"domains": domains}),
		}),
		"error?": nil, "message?": nil,
	})
}
