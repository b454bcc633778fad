// Package doccheck holds the tests that keep the repository's Markdown
// and Go comments about the system as it is: no words about how it came
// to be, and no relative link that leaves the repository or names a file
// or heading that does not exist. It has no code of its own.
package doccheck
