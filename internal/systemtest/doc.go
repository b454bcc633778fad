// Package systemtest holds the whole-system tests that run in one process:
// the real catalog service over bufconn, the real gateway through httptest.
// It sits outside gateway/ and catalog/ so that neither imports the other;
// it has no code outside its tests.
package systemtest
