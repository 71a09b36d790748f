package protocol

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// Nullable is a field of a partial update that can be left out (Set false), cleared with null
// (Null true) or given a value. Tag such fields omitzero so that a field left out stays out when
// the struct is marshalled.
type Nullable[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// UnmarshalJSON records that the field was present.
func (n *Nullable[T]) UnmarshalJSON(b []byte) error {
	n.Set = true
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		n.Null = true
		return nil
	}
	return json.Unmarshal(b, &n.Value)
}

// MarshalJSON writes the value, or null.
func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	if !n.Set || n.Null {
		return []byte("null"), nil
	}
	return json.Marshal(n.Value)
}

// JSONSchema is the schema of T that also admits null.
func (Nullable[T]) JSONSchema() *Schema {
	s := clone(SchemaOf(reflect.TypeFor[T]()))
	s.Type = []string{s.PrimaryType(), "null"}
	return s
}

// IsZero reports whether the field was left out, so that a struct field tagged omitzero is left
// out when it is marshalled (omitempty does not leave out a struct, and an unset Nullable would
// otherwise travel as null, which clears the field on the other side).
func (n Nullable[T]) IsZero() bool { return !n.Set }

// Given reports whether a non-null value was given.
func (n Nullable[T]) Given() bool { return n.Set && !n.Null }
