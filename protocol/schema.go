package protocol

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Schema is the subset of JSON Schema (2020-12, as used by OpenAPI 3.1 and MCP) that the exchange
// derives from its Go types and enforces on input. Numbers are kept as json.Number text so bounds
// compare exactly.
type Schema struct {
	Type                 any                `json:"type,omitempty"` // string, or []string with "null"
	Title                string             `json:"title,omitempty"`
	Description          string             `json:"description,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	AdditionalProperties any                `json:"additionalProperties,omitempty"` // bool or *Schema
	Items                *Schema            `json:"items,omitempty"`
	Enum                 []any              `json:"enum,omitempty"`
	Minimum              json.Number        `json:"minimum,omitempty"`
	Maximum              json.Number        `json:"maximum,omitempty"`
	ExclusiveMinimum     json.Number        `json:"exclusiveMinimum,omitempty"`
	MultipleOf           json.Number        `json:"multipleOf,omitempty"`
	MinLength            *int               `json:"minLength,omitempty"`
	MaxLength            *int               `json:"maxLength,omitempty"`
	MinItems             *int               `json:"minItems,omitempty"`
	MaxItems             *int               `json:"maxItems,omitempty"`
	Pattern              string             `json:"pattern,omitempty"`
	Format               string             `json:"format,omitempty"`
	Default              any                `json:"default,omitempty"`
	OneOf                []*Schema          `json:"oneOf,omitempty"`

	// order keeps the declaration order of Properties for documentation and error reporting.
	order []string
}

// Schemaer is implemented by types that describe themselves.
type Schemaer interface{ JSONSchema() *Schema }

// PropertyOrder returns the property names in declaration order.
func (s *Schema) PropertyOrder() []string {
	if len(s.order) == len(s.Properties) {
		return s.order
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// AddProperty appends a property, keeping declaration order.
func (s *Schema) AddProperty(name string, p *Schema, required bool) {
	if s.Properties == nil {
		s.Properties = map[string]*Schema{}
	}
	if _, dup := s.Properties[name]; !dup {
		s.order = append(s.order, name)
	}
	s.Properties[name] = p
	if required {
		s.Required = append(s.Required, name)
	}
}

// PrimaryType is the schema's type without "null".
func (s *Schema) PrimaryType() string {
	switch t := s.Type.(type) {
	case string:
		return t
	case []string:
		for _, x := range t {
			if x != "null" {
				return x
			}
		}
	}
	return ""
}

func (s *Schema) nullable() bool {
	if t, ok := s.Type.([]string); ok {
		for _, x := range t {
			if x == "null" {
				return true
			}
		}
	}
	return false
}

var schemaCache sync.Map // reflect.Type -> *Schema

// SchemaOf derives the JSON Schema of a Go type. Struct fields use their json names and these tags:
//
//	schema:"required;min=1;max=5;maxLength=100;minLength=1;pattern=^a+$;enum=a|b;decimals=2;
//	        nullable;maxItems=5;minItems=1;format=uri;exclusiveMin=0;default=x"
//	doc:"a sentence for the documentation"
//
// Options are separated by ';' so that patterns may hold commas. decimals=N becomes multipleOf
// 10^-N. An enum on an array field applies to its items. Embedded structs are flattened as
// encoding/json does; a struct that embeds a Schemaer is described by its fields (see
// embedsSchemaer). The result is shared: do not modify it.
func SchemaOf(t reflect.Type) *Schema {
	if s, ok := schemaCache.Load(t); ok {
		return s.(*Schema)
	}
	s := build(t, map[reflect.Type]bool{})
	schemaCache.Store(t, s)
	return s
}

// SchemaFor is SchemaOf for a type parameter.
func SchemaFor[T any]() *Schema { return SchemaOf(reflect.TypeFor[T]()) }

var (
	schemaerType = reflect.TypeFor[Schemaer]()
	timeType     = reflect.TypeFor[time.Time]()
	rawType      = reflect.TypeFor[json.RawMessage]()
)

func build(t reflect.Type, seen map[reflect.Type]bool) *Schema {
	if t.Kind() == reflect.Pointer {
		return build(t.Elem(), seen)
	}
	if !(t.Kind() == reflect.Struct && embedsSchemaer(t)) {
		if t.Implements(schemaerType) {
			return reflect.Zero(t).Interface().(Schemaer).JSONSchema()
		}
		if reflect.PointerTo(t).Implements(schemaerType) {
			return reflect.New(t).Interface().(Schemaer).JSONSchema()
		}
	}
	switch t {
	case timeType:
		return &Schema{Type: "string", Format: "date-time"}
	case rawType:
		return &Schema{}
	}
	switch t.Kind() {
	case reflect.String:
		return &Schema{Type: "string"}
	case reflect.Bool:
		return &Schema{Type: "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &Schema{Type: "integer"}
	case reflect.Float32, reflect.Float64:
		return &Schema{Type: "number"}
	case reflect.Slice, reflect.Array:
		return &Schema{Type: "array", Items: build(t.Elem(), seen)}
	case reflect.Map:
		if t.Elem().Kind() == reflect.Interface {
			return &Schema{Type: "object"}
		}
		return &Schema{Type: "object", AdditionalProperties: build(t.Elem(), seen)}
	case reflect.Interface:
		return &Schema{}
	case reflect.Struct:
		if seen[t] {
			return &Schema{Type: "object"}
		}
		seen[t] = true
		defer delete(seen, t)
		s := &Schema{Type: "object", AdditionalProperties: false}
		addFields(s, t, seen)
		return s
	}
	panic(fmt.Sprintf("protocol: no schema for %s", t))
}

// embedsSchemaer reports whether struct t embeds a type that describes itself. t then has a
// JSONSchema method promoted from the embedded type, which would describe the embedded part alone
// and drop t's own fields (OfferInput embeds QuoteAnswer beside its path id). Such a struct is
// described by its fields instead, with the embedded struct's fields flattened in as encoding/json
// does; a struct that embeds a Schemaer cannot describe itself.
func embedsSchemaer(t reflect.Type) bool {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && (f.Type.Implements(schemaerType) || reflect.PointerTo(f.Type).Implements(schemaerType)) {
			return true
		}
	}
	return false
}

func addFields(s *Schema, t reflect.Type, seen map[reflect.Type]bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			// encoding/json promotes the exported fields of an embedded struct even when the
			// struct type itself is unexported.
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				addFields(s, ft, seen)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		p := clone(build(f.Type, seen))
		required := applyTag(p, f.Tag.Get("schema"), f.Type)
		if d := f.Tag.Get("doc"); d != "" {
			p.Description = d
		}
		// A pointer that is not left out when nil is written as null: the schema says so.
		if opts := f.Tag.Get("json"); f.Type.Kind() == reflect.Pointer && !strings.Contains(opts, ",omitempty") &&
			!strings.Contains(opts, ",omitzero") && !p.nullable() && p.Type != nil {
			p.Type = []string{p.PrimaryType(), "null"}
			if len(p.Enum) > 0 {
				p.Enum = append(append([]any(nil), p.Enum...), nil)
			}
		}
		s.AddProperty(name, p, required)
	}
}

func clone(s *Schema) *Schema {
	c := *s
	return &c
}

func intp(v int) *int { return &v }

// applyTag applies schema tag options to p and reports whether the field is required.
func applyTag(p *Schema, tag string, ft reflect.Type) bool {
	required := false
	if tag == "" {
		return false
	}
	for _, opt := range strings.Split(tag, ";") {
		k, v, _ := strings.Cut(opt, "=")
		switch k {
		case "required":
			required = true
		case "nullable":
			p.Type = []string{p.PrimaryType(), "null"}
		case "min":
			p.Minimum = json.Number(v)
		case "max":
			p.Maximum = json.Number(v)
		case "exclusiveMin":
			p.ExclusiveMinimum = json.Number(v)
		case "decimals":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				panic(fmt.Sprintf("protocol: bad decimals=%q on %s", v, ft))
			}
			if n == 0 {
				p.MultipleOf = "1"
			} else {
				p.MultipleOf = json.Number("0." + strings.Repeat("0", n-1) + "1")
			}
		case "maxLength":
			n, _ := strconv.Atoi(v)
			p.MaxLength = intp(n)
		case "minLength":
			n, _ := strconv.Atoi(v)
			p.MinLength = intp(n)
		case "maxItems":
			n, _ := strconv.Atoi(v)
			p.MaxItems = intp(n)
		case "minItems":
			n, _ := strconv.Atoi(v)
			p.MinItems = intp(n)
		case "pattern":
			p.Pattern = v
		case "format":
			p.Format = v
		case "default":
			p.Default = typedDefault(p, v)
		case "enum":
			target := p
			if p.PrimaryType() == "array" && p.Items != nil {
				target = clone(p.Items)
				p.Items = target
			}
			target.Enum = nil
			for _, e := range strings.Split(v, "|") {
				target.Enum = append(target.Enum, e)
			}
		case "":
		default:
			panic(fmt.Sprintf("protocol: unknown schema option %q on %s", k, ft))
		}
	}
	return required
}

func typedDefault(p *Schema, v string) any {
	switch p.PrimaryType() {
	case "integer":
		n, _ := strconv.ParseInt(v, 10, 64)
		return n
	case "number":
		return json.Number(v)
	case "boolean":
		return v == "true"
	case "array":
		if v == "" {
			return []any{}
		}
		var out []any
		for _, x := range strings.Split(v, "|") {
			out = append(out, x)
		}
		return out
	}
	return v
}
