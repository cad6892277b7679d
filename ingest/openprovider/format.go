package openprovider

import "github.com/zoneprice/zoneprice/ingest"

// format is the document as the package comment's Fields list it: a
// name ending in "?" may be absent (read where present, ignored, or an
// error envelope's). The runner reports a document that drifted from it
// (ingest.Drift).
func format() *ingest.Shape {
	fees := ingest.Object(map[string]*ingest.Shape{
		"registerFee": ingest.Scalar(), "renewalFee": ingest.Scalar(), "transferFee": ingest.Scalar(), "restoreFee?": nil,
	})
	// A row's fees are flat, or by membership: each may be absent.
	row := ingest.Object(map[string]*ingest.Shape{
		"tld": ingest.Scalar(), "currency?": ingest.Scalar(), "nonMember?": fees, "member?": fees,
		"registerFee?": ingest.Scalar(), "renewalFee?": ingest.Scalar(), "transferFee?": ingest.Scalar(), "restoreFee?": nil,
	})
	return ingest.Object(map[string]*ingest.Shape{
		"data": ingest.Array(row), "currency?": ingest.Scalar(),
		"code?": nil, "desc?": nil, "message?": nil, "error?": nil,
	})
}
