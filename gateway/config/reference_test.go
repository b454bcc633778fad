package config

import (
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestConfigurationReference holds docs/configuration.md to the code: one
// row per setting, each default as defaults() has it, each environment
// variable as overrides lists it.
func TestConfigurationReference(t *testing.T) {
	data, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ def, env string }
	documented := map[string]row{}
	cell := regexp.MustCompile("^`([^`]*)`$")
	for _, line := range strings.Split(string(data), "\n") {
		cols := strings.Split(line, "|")
		if len(cols) != 6 || !strings.HasPrefix(strings.TrimSpace(cols[1]), "`") {
			continue
		}
		unquote := func(s string) string {
			s = strings.TrimSpace(s)
			if m := cell.FindStringSubmatch(s); m != nil {
				return m[1]
			}
			return s
		}
		documented[unquote(cols[1])] = row{def: unquote(cols[2]), env: unquote(cols[3])}
	}

	envOf := map[string]string{}
	for _, o := range overrides {
		envOf[o.setting] = o.name
	}
	var settings []string
	walk(reflect.TypeOf(Config{}), reflect.ValueOf(*defaults()), "", func(path string, def reflect.Value) {
		settings = append(settings, path)
		r, ok := documented[path]
		if !ok {
			t.Errorf("setting %s is not in docs/configuration.md", path)
			return
		}
		if r.env != envOf[path] {
			t.Errorf("%s: documented environment %q, the code has %q", path, r.env, envOf[path])
		}
		if want := render(def); !strings.HasPrefix(path, "products") && r.def != want {
			t.Errorf("%s: documented default %q, the code has %q", path, r.def, want)
		}
	})
	for path := range documented {
		if !slices.Contains(settings, path) {
			t.Errorf("docs/configuration.md documents %s, which is not a setting", path)
		}
	}
	if len(settings) < 40 {
		t.Fatalf("walked only %d settings: %v", len(settings), settings)
	}
}

// walk calls leaf for every setting under t, by its documented path, with
// its default (an invalid Value under lists, maps and nil pointers).
func walk(t reflect.Type, def reflect.Value, path string, leaf func(path string, def reflect.Value)) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
		if def.IsValid() && !def.IsNil() {
			def = def.Elem()
		} else {
			def = reflect.Value{}
		}
	}
	field := func(name string) string { return strings.TrimPrefix(path+"."+name, ".") }
	switch {
	case t == reflect.TypeFor[time.Duration]():
		leaf(path, def)
	case t.Kind() == reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			var fd reflect.Value
			if def.IsValid() {
				fd = def.Field(i)
			}
			walk(f.Type, fd, field(name), leaf)
		}
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		walk(t.Elem(), reflect.Value{}, path+"[]", leaf)
	case t.Kind() == reflect.Map && t.Elem().Kind() == reflect.Struct:
		walk(t.Elem(), reflect.Value{}, field("<plan>"), leaf)
	default:
		leaf(path, def)
	}
}

// render writes a default as the reference does.
func render(v reflect.Value) string {
	if !v.IsValid() || v.IsZero() && v.Kind() != reflect.Bool && v.Type() != reflect.TypeFor[time.Duration]() && v.Kind() != reflect.Int {
		return "none"
	}
	if d, ok := v.Interface().(time.Duration); ok {
		return d.String()
	}
	return fmt.Sprint(v.Interface())
}
