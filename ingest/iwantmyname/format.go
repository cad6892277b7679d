package iwantmyname

import "github.com/zoneprice/zoneprice/ingest"

// format is the document as the package comment's Fields list it: a
// name ending in "?" may be absent (read where present, ignored, or an
// error envelope's). The runner reports a document that drifted from it
// (ingest.Drift).
func format() *ingest.Shape {
	operation := ingest.Object(map[string]*ingest.Shape{"price": ingest.Scalar()})
	row := ingest.Object(map[string]*ingest.Shape{"registration": operation, "renewal": operation, "transfer": operation})
	return ingest.Object(map[string]*ingest.Shape{
		"rows": ingest.Object(map[string]*ingest.Shape{"*": row}), "totalRows": ingest.Scalar(),
		"currency?": ingest.Scalar(), "error?": nil, "message?": nil,
	})
}
