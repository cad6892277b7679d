package inwx

import "github.com/zoneprice/zoneprice/ingest"

// format is the document as the package comment's Fields list it: a
// name ending in "?" may be absent (read where present, ignored, or an
// error envelope's). The runner reports a document that drifted from it
// (ingest.Drift).
func format() *ingest.Shape {
	row := ingest.Object(map[string]*ingest.Shape{
		"tld": ingest.Scalar(), "createPrice": ingest.Scalar(), "renewalPrice": ingest.Scalar(),
		"transferPrice": ingest.Scalar(), "currency": ingest.Scalar(), "restorePrice?": nil,
	})
	return ingest.Object(map[string]*ingest.Shape{
		"tlds": ingest.Array(row), "currency?": ingest.Scalar(),
		"code?": nil, "msg?": nil, "reason?": nil, "message?": nil, "error?": nil,
	})
}
