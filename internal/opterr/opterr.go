// Package opterr is how a library says which of its options holds a bad
// value without knowing how a command spells that option: an *Error names
// the option as the library's options type does ("Out", "Hardness"), and
// the command that prints it spells each option as its flag (Message).
package opterr

import (
	"errors"
	"fmt"
	"strings"
)

// Error is an option whose value a library refuses.
type Error struct {
	// Option is the option as the library's options type names it: a
	// field ("Out", "ValRef") or a parameter of the call.
	Option string
	// Value is the value as given, as text; "" when the option's value
	// goes without saying (it was not given, or clashes with another).
	Value string
	// Err is what is wrong with it; Errorf's messages may name other
	// options.
	Err error
	// Clause says that Err continues the option's name as a clause
	// ("OPTION needs OTHER"), not after a colon.
	Clause bool
}

// Name is an option named in the message of another option's error
// (Errorf); it is spelled as Error.Option is.
type Name string

// New returns the error of option holding value: Err is Errorf(format,
// args...), so a Name among args names another option.
func New(option, value, format string, args ...any) *Error {
	return &Error{Option: option, Value: value, Err: Errorf(format, args...)}
}

// Clause returns the error of an option whose message reads on from its
// name: "OPTION " + Errorf(format, args...), as in "--a needs --b".
func Clause(option, format string, args ...any) *Error {
	return &Error{Option: option, Err: Errorf(format, args...), Clause: true}
}

// Wrap returns the error of option holding value for err; nil stays nil.
func Wrap(option, value string, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Option: option, Value: value, Err: err}
}

// Error is the message with the options as the library names them:
// "OPTION VALUE: ERR", or "OPTION: ERR" without a value ("OPTION ERR" for a
// Clause).
func (e *Error) Error() string { return e.render(nil) }

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// render spells e's option, and the Names of its own message, by name.
// The text of Err, when not Errorf's, is left as it is: Message finds the
// Errors in it.
func (e *Error) render(name func(string) string) string {
	var b strings.Builder
	b.WriteString(spell(name, e.Option))
	if e.Value != "" {
		b.WriteString(" ")
		b.WriteString(e.Value)
	}
	if e.Err != nil {
		if e.Clause && e.Value == "" {
			b.WriteString(" ")
		} else {
			b.WriteString(": ")
		}
		if m, ok := e.Err.(*message); ok {
			b.WriteString(m.render(name))
		} else {
			b.WriteString(e.Err.Error())
		}
	}
	return b.String()
}

// spell is name(option), or option where name is nil or gives "".
func spell(name func(string) string, option string) string {
	if name != nil {
		if s := name(option); s != "" {
			return s
		}
	}
	return option
}

// message is Errorf's error: a format whose Name arguments are spelled
// when the message is rendered.
type message struct {
	format string
	args   []any
	err    error // fmt.Errorf's, for Unwrap
}

// Errorf is fmt.Errorf where an argument of type Name names an option,
// spelled as the option of the Error that holds the message (%w wraps as
// in fmt.Errorf).
func Errorf(format string, args ...any) error {
	return &message{format: format, args: args, err: fmt.Errorf(format, args...)}
}

func (m *message) Error() string { return m.render(nil) }

func (m *message) Unwrap() error { return errors.Unwrap(m.err) }

func (m *message) render(name func(string) string) string {
	args := make([]any, len(m.args))
	for i, a := range m.args {
		if n, ok := a.(Name); ok {
			a = spell(name, string(n))
		}
		args[i] = a
	}
	return fmt.Sprintf(strings.ReplaceAll(m.format, "%w", "%v"), args...)
}

// Message is err's message with every option named by an *Error in its
// chain spelled by name (as the library names it where name gives "").
// Each Error's own text is found in the message of the errors that wrap
// it and replaced there, so the words that wrappers add stay.
func Message(err error, name func(option string) string) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	var walk func(error)
	walk = func(e error) {
		for e != nil {
			if oe, ok := e.(*Error); ok {
				msg = strings.Replace(msg, oe.Error(), oe.render(name), 1)
			}
			switch u := e.(type) {
			case interface{ Unwrap() []error }:
				for _, x := range u.Unwrap() {
					walk(x)
				}
				return
			case interface{ Unwrap() error }:
				e = u.Unwrap()
			default:
				return
			}
		}
	}
	walk(err)
	return msg
}

// As returns the first *Error in err's chain, or nil.
func As(err error) *Error {
	var oe *Error
	if errors.As(err, &oe) {
		return oe
	}
	return nil
}

// Has reports whether err's chain holds an *Error.
func Has(err error) bool { return As(err) != nil }
