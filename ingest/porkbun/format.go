package porkbun

import (
	"time"

	"github.com/zoneprice/zoneprice/ingest"
)

// format is the document as the package comment's Fields list it: what a
// response that drifted from it has, the runner reports (ingest.Drift).
func format() *ingest.Shape {
	entry := ingest.Object(map[string]*ingest.Shape{
		"registration": ingest.Scalar(), "renewal": ingest.Scalar(), "transfer": ingest.Scalar(),
		"specialType?": ingest.Scalar(),
		// [] without a coupon, an object by operation with one: its
		// shape varies, and is not looked into.
		"coupons": nil,
	})
	return ingest.Object(map[string]*ingest.Shape{
		"status": ingest.Scalar(), "message?": ingest.Scalar(), "code?": ingest.Scalar(),
		"pricing": ingest.Object(map[string]*ingest.Shape{"*": entry}),
	})
}

// Parse reads one response body of the pricing endpoint into a list of
// price sets observed at observed, with its drift from format.
func Parse(body []byte, observed time.Time) (*ingest.List, error) {
	list, err := parse(body, observed)
	return ingest.CheckFormat(format(), body, list, err)
}
