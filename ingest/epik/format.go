package epik

import "github.com/zoneprice/zoneprice/ingest"

// format is the document as the package comment's Fields list it: a
// name ending in "?" may be absent (read where present, ignored, or an
// error envelope's). The runner reports a document that drifted from it
// (ingest.Drift).
func format() *ingest.Shape {
	entry := ingest.Object(map[string]*ingest.Shape{
		"price": ingest.Scalar(), "renew": ingest.Scalar(), "transfer": ingest.Scalar(),
		"priceStandard?": ingest.Scalar(), "renewStandard?": ingest.Scalar(), "transferStandard?": ingest.Scalar(),
		"currency?": ingest.Scalar(),
	})
	return ingest.Object(map[string]*ingest.Shape{"*": entry, "message?": nil, "error?": nil, "errors?": nil})
}
