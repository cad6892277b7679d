package tierra

import "github.com/zoneprice/zoneprice/ingest"

// format is the document as the package comment's Fields list it: a
// name ending in "?" may be absent (read where present, ignored, or an
// error envelope's). The runner reports a document that drifted from it
// (ingest.Drift).
func format() *ingest.Shape {
	// An entry is an array read by position: it has no field to miss or
	// add, only a shape.
	return ingest.Object(map[string]*ingest.Shape{
		"*": ingest.Array(ingest.Scalar()), "error?": ingest.Scalar(), "message?": ingest.Scalar(),
	})
}
