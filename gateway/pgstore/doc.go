// Package pgstore keeps the gateway's state in PostgreSQL: the keys, as a
// keys.Store (Keys), in tables its embedded migrations make, the tables
// of usage counting included (see gateway/usage). It is the one package
// of the gateway that links the PostgreSQL driver, so that the request
// path, which reads keys from memory, does not.
package pgstore
