package main

import (
	"crypto/rand"
	"log/slog"
	"net"

	"github.com/exercisedb/exercisedb/gateway/config"
)

// mediaSecret is the key of the media URLs' signatures: the configured
// one, or a random one that lasts as long as the process (its URLs then
// stop working at a restart, and on other replicas).
func mediaSecret(configured string, log *slog.Logger) []byte {
	if configured != "" {
		return []byte(configured)
	}
	log.Warn("media.signing_secret is not set: media URLs are signed with a random secret, so they stop working when this gateway restarts and work on no other replica")
	return []byte(rand.Text())
}

// publicURL is the origin of the gateway's media URLs: media.public_url,
// else the public listener's address.
func publicURL(cfg *config.Config) string {
	if cfg.Media.PublicURL != "" {
		return cfg.Media.PublicURL
	}
	scheme := "http://"
	if cfg.TLS != nil {
		scheme = "https://"
	}
	host, port, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return scheme + cfg.Listen // validated already; not reached
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost" // every interface: this machine's name for itself
	}
	return scheme + net.JoinHostPort(host, port)
}
