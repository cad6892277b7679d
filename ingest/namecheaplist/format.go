package namecheaplist

import "github.com/zoneprice/zoneprice/ingest"

// format is the document as the package comment's Fields list it: a
// name ending in "?" may be absent (read where present, ignored, or an
// error envelope's). The runner reports a document that drifted from it
// (ingest.Drift).
func format() *ingest.Shape {
	pricing := ingest.Object(map[string]*ingest.Shape{
		"Price": ingest.Scalar(), "Renewal": ingest.Scalar(), "Duration": ingest.Scalar(), "DurationType": ingest.Scalar(),
		"Regular?": ingest.Scalar(), "Currency?": ingest.Scalar(), "Hint?": nil,
	})
	return ingest.Array(ingest.Object(map[string]*ingest.Shape{"Name": ingest.Scalar(), "Pricing": pricing}))
}
