// Package openapi only pins versions: the runtime that oapi-codegen's
// clients import is required here, so the codegen test
// (internal/systemtest) builds a generated client against this go.sum
// without resolving anything new.
package openapi

import _ "github.com/oapi-codegen/runtime"
