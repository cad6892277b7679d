package porkbun

import "github.com/zoneprice/zoneprice/ingest"

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
