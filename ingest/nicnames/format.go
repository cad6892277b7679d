package nicnames

import "github.com/zoneprice/zoneprice/ingest"

// format is the document as the package comment's Fields list it: a
// name ending in "?" may be absent (read where present, ignored, or an
// error envelope's). The runner reports a document that drifted from it
// (ingest.Drift).
func format() *ingest.Shape {
	// The first registrar is looked at, whichever it is: they share a
	// shape, though only nicnames.com's entry is read.
	registrar := ingest.Object(map[string]*ingest.Shape{
		"name": ingest.Scalar(), "currency": ingest.Scalar(), "ICANNfee": ingest.Scalar(),
		"prices": ingest.Array(ingest.Array(ingest.Scalar())),
	})
	return ingest.Object(map[string]*ingest.Shape{"registrars": ingest.Array(registrar), "message?": nil, "error?": nil})
}
