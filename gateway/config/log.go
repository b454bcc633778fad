package config

import (
	"log/slog"

	"go.yaml.in/yaml/v3"
)

// LogValue renders the configuration for the start-up log as the file
// would say it: the file's key names, durations such as "2s" rather than
// nanoseconds, plans' rates rather than pointers, secrets masked (see
// Redacted). Going through the YAML encoder keeps it complete as settings
// are added.
func (c *Config) LogValue() slog.Value {
	r := c.Redacted()
	data, err := yaml.Marshal(&r)
	if err != nil {
		return slog.StringValue("unprintable: " + err.Error())
	}
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		return slog.StringValue("unprintable: " + err.Error())
	}
	return slog.AnyValue(m)
}
