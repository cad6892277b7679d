package dynadot

import "github.com/zoneprice/zoneprice/ingest"

// format is the document as the package comment's Fields list it: a
// name ending in "?" may be absent (read where present, ignored, or an
// error envelope's). The runner reports a document that drifted from it
// (ingest.Drift).
func format() *ingest.Shape {
	// original_tr_price and google_data are read where present; restore,
	// privacy, idn, restrictions, usage and grace_period are not read.
	row := ingest.Object(map[string]*ingest.Shape{
		"name": ingest.Scalar(), "reg_price": ingest.Scalar(), "original_reg_price": ingest.Scalar(),
		"renew_price": ingest.Scalar(), "original_renew_price": ingest.Scalar(), "tr_price": ingest.Scalar(),
		"original_tr_price?": ingest.Scalar(), "google_data?": ingest.Object(map[string]*ingest.Shape{"currency?": ingest.Scalar(), "*": nil}),
		"restore?": nil, "privacy?": nil, "idn?": nil, "restrictions?": nil, "usage?": nil, "grace_period?": nil,
	})
	return ingest.Object(map[string]*ingest.Shape{
		"code": ingest.Scalar(), "msg": ingest.Scalar(),
		"data": ingest.Object(map[string]*ingest.Shape{"current_tlds": ingest.Array(row)}),
	})
}
