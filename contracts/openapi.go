package contracts

import (
	"bytes"
	_ "embed"
)

// openapiJSON is the API's OpenAPI document, written by hand. The query
// service serves it; its tests validate real responses against it and keep
// every documented response field in testdata/api-fields.golden.
//
//go:embed openapi.json
var openapiJSON []byte

// OpenAPI returns the API's OpenAPI 3.1 document (JSON): every path,
// parameter, response, header and error the query service answers with,
// its schemas in JSON Schema 2020-12. Each call returns a new copy, so
// callers may keep or change it.
func OpenAPI() []byte { return bytes.Clone(openapiJSON) }
