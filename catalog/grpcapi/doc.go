// Package grpcapi serves the catalogue over gRPC: it converts between the
// exercisedb.catalog.v1 messages and package exercise, maps catalogue errors
// onto gRPC status codes with error details, and logs each call with the
// request id its caller sent. Generated protobuf types stay in this package.
package grpcapi
