package namecheaplist

import (
	"time"

	"github.com/zoneprice/zoneprice/ingest"
)

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

// Parse reads a saved response as parse does, with its drift from
// format.
func Parse(body []byte, observed time.Time) (*ingest.List, error) {
	list, err := parse(body, observed)
	return ingest.CheckFormat(format(), body, list, err)
}
