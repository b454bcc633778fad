// Package medialink makes and checks the URLs of media files. A file lives
// at "<media key>/<digest>/<file>" (the catalog's names: the digest changes
// whenever the file's content would, so a path names one content for
// ever). The gateway serves files itself under /media/<signature>/<path>:
// the signature, an HMAC of the path under a secret the replicas share,
// proves that the gateway issued the URL, so URLs need no API key and a
// plan's largest height cannot be raised by editing one. A product may
// instead point at a published media set (a CDN), whose URLs are
// <base>/<path>, unsigned.
package medialink

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"hash"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Heights are the heights at which demonstrations exist, smallest first.
var Heights = []int{180, 360, 720}

// The files of a media key, as the catalog names them.
const (
	PosterFile    = "poster.png"
	MuscleMapFile = "muscles.svg"
)

// Kind is the kind of demonstration a product sells.
type Kind string

// The kinds.
const (
	GIF   Kind = "gif"
	Video Kind = "video"
)

// UnmarshalYAML decodes a product's media.kind in the gateway's
// configuration; a value other than gif or video is reported with its
// line, as the decoder reports its own errors.
func (k *Kind) UnmarshalYAML(n *yaml.Node) error {
	switch v := Kind(n.Value); v {
	case GIF, Video:
		*k = v
		return nil
	}
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: media.kind %q: want gif or video", n.Line, n.Value)}}
}

// File returns the name of the kind's demonstration at height h.
func (k Kind) File(h int) string {
	if k == Video {
		return strconv.Itoa(h) + ".mp4"
	}
	return strconv.Itoa(h) + ".gif"
}

// ContentType returns the media type of the kind's demonstrations.
func (k Kind) ContentType() string {
	if k == Video {
		return "video/mp4"
	}
	return "image/gif"
}

// sigLen is the length of a signature: 128 bits of HMAC-SHA256, base64url.
const sigLen = 22

// Signer signs and checks the gateway's own media URLs.
type Signer struct {
	root string    // public URL of /media/, with the trailing slash
	pool sync.Pool // of HMAC states keyed with the secret

	// made remembers the parts of the URLs made: a listing signs a URL
	// per record, and the records of a catalogue are few. It is emptied
	// when it reaches maxMade, so that the digests of old catalogues do
	// not pile up.
	mu   sync.RWMutex
	made map[partsKey]urlParts
}

type partsKey struct {
	base string
	ref  Ref
}

type urlParts struct{ prefix, suffix string }

// maxMade bounds Signer.made: a few files of each record of a large
// catalogue.
const maxMade = 1 << 16

// NewSigner returns a signer whose URLs start with publicURL + "/media/".
func NewSigner(secret []byte, publicURL string) *Signer {
	s := &Signer{root: strings.TrimSuffix(publicURL, "/") + "/media/"}
	key := append([]byte(nil), secret...)
	s.pool.New = func() any { return hmac.New(sha256.New, key) }
	return s
}

// Root returns the URL every signed media URL starts with.
func (s *Signer) Root() string { return s.root }

func (s *Signer) sign(path string) string {
	h := s.pool.Get().(hash.Hash)
	defer s.pool.Put(h)
	h.Reset()
	h.Write([]byte(path))
	var sum [sha256.Size]byte
	return base64.RawURLEncoding.EncodeToString(h.Sum(sum[:0])[:16])
}

// URL returns the URL of the file ref names under base, or signed under
// the gateway's own /media when base is "".
func (s *Signer) URL(base string, ref Ref) string {
	prefix, suffix := s.Parts(base, ref)
	return prefix + ref.Key + suffix
}

// Parts returns what surrounds ref.Key in URL(base, ref), for writers that
// append the URL without building it.
func (s *Signer) Parts(base string, ref Ref) (prefix, suffix string) {
	k := partsKey{base, ref}
	s.mu.RLock()
	p, ok := s.made[k]
	s.mu.RUnlock()
	if ok {
		return p.prefix, p.suffix
	}
	suffix = "/" + ref.Digest + "/" + ref.File
	if base != "" {
		prefix = strings.TrimSuffix(base, "/") + "/"
	} else {
		prefix = s.root + s.sign(ref.Path()) + "/"
	}
	s.mu.Lock()
	if len(s.made) >= maxMade || s.made == nil {
		s.made = make(map[partsKey]urlParts)
	}
	s.made[k] = urlParts{prefix, suffix}
	s.mu.Unlock()
	return prefix, suffix
}

// Check reads the part of a media URL's path after /media/: it reports
// the file's path and whether the signature is the one this signer gives
// it. Any edit of the path or the signature fails the check.
func (s *Signer) Check(signedPath string) (path string, ok bool) {
	sig, path, found := strings.Cut(signedPath, "/")
	if !found || len(sig) != sigLen {
		return "", false
	}
	want := s.sign(path)
	return path, hmac.Equal([]byte(sig), []byte(want))
}

// Ref names one media file as the catalog draws it: a media key, the
// digest of the media's content, and a file name.
type Ref struct {
	Key, Digest, File string
}

// Path returns the path of the file: "<key>/<digest>/<file>".
func (r Ref) Path() string { return r.Key + "/" + r.Digest + "/" + r.File }

// Split reads a file's path (Ref.Path) into its Ref.
func Split(path string) (Ref, bool) {
	i := strings.LastIndexByte(path, '/')
	if i <= 0 {
		return Ref{}, false
	}
	j := strings.LastIndexByte(path[:i], '/')
	if j <= 0 || j+1 == i || i+1 == len(path) {
		return Ref{}, false
	}
	return Ref{Key: path[:j], Digest: path[j+1 : i], File: path[i+1:]}, true
}
