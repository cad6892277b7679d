// Package generators pins, in a module of its own, the two client
// generators the API's OpenAPI document is tested with (the tool
// directives of go.mod: oapi-codegen and ogen), and the packages the code
// they generate imports, so that a client generated in a test builds from
// this go.mod and go.sum alone. openapitest.GenerateClients runs them.
//
// It is a module of its own, not tools of the main one, because the
// generators would otherwise raise modules the service's binaries link
// (segmentio/asm, and go-logr and OpenTelemetry in its tests), and their
// generated code needs modules the service never imports (echo v4 and
// kin-openapi for oapi-codegen's server and embedded document, and
// oapi-codegen's runtime).
package generators

import (
	// What oapi-codegen's generated package imports.
	_ "github.com/getkin/kin-openapi/openapi3"
	_ "github.com/labstack/echo/v4"
	_ "github.com/oapi-codegen/runtime"
	_ "github.com/oapi-codegen/runtime/types"

	// What ogen's generated package imports.
	_ "github.com/go-faster/errors"
	_ "github.com/go-faster/jx"
	_ "github.com/ogen-go/ogen/conv"
	_ "github.com/ogen-go/ogen/http"
	_ "github.com/ogen-go/ogen/json"
	_ "github.com/ogen-go/ogen/middleware"
	_ "github.com/ogen-go/ogen/ogenerrors"
	_ "github.com/ogen-go/ogen/ogenregex"
	_ "github.com/ogen-go/ogen/otelogen"
	_ "github.com/ogen-go/ogen/uri"
	_ "github.com/ogen-go/ogen/validate"
	_ "go.opentelemetry.io/otel"
	_ "go.opentelemetry.io/otel/attribute"
	_ "go.opentelemetry.io/otel/codes"
	_ "go.opentelemetry.io/otel/metric"
	_ "go.opentelemetry.io/otel/semconv/v1.39.0"
	_ "go.opentelemetry.io/otel/trace"
)
