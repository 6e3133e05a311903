package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/mail"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// fieldErrors collects one message per field: the `details` object of a 400.
type fieldErrors map[string]string

func (f fieldErrors) add(field, msg string) {
	if _, dup := f[field]; !dup {
		f[field] = msg
	}
}

var errInternal = errors.New("internal")

// decodeObject reads a JSON object into raw fields. Unknown fields are kept and ignored by the caller.
func decodeObject(body []byte, bugs bugSet) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if bugs.on("json-trailing-garbage") || bugs.on("truncated-json-500") {
		dec := json.NewDecoder(bytes.NewReader(body))
		if err := dec.Decode(&m); err != nil {
			if bugs.on("truncated-json-500") && errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, errInternal
			}
			return nil, fmt.Errorf("malformed JSON body: %v", err)
		}
		if !bugs.on("json-trailing-garbage") {
			if err := dec.Decode(new(json.RawMessage)); err != io.EOF {
				return nil, errors.New("malformed JSON body: data after the top-level value")
			}
		}
		if m == nil {
			return nil, errors.New("the body must be a JSON object")
		}
		return m, nil
	}
	if !json.Valid(body) {
		return nil, errors.New("malformed JSON body")
	}
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return nil, errors.New("the body must be a JSON object")
	}
	return m, nil
}

func isNull(raw json.RawMessage) bool { return raw == nil || string(raw) == "null" }

// optString returns nil for an absent or null field.
func optString(m map[string]json.RawMessage, key string, errs fieldErrors) *string {
	raw, ok := m[key]
	if !ok || isNull(raw) {
		return nil
	}
	return stringValue(raw, key, errs)
}

func stringValue(raw json.RawMessage, key string, errs fieldErrors) *string {
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		errs.add(key, "must be a string")
		return nil
	}
	return &v
}

func reqString(m map[string]json.RawMessage, key string, errs fieldErrors) string {
	v := optString(m, key, errs)
	if _, bad := errs[key]; bad {
		return ""
	}
	if v == nil || *v == "" {
		errs.add(key, "is required")
		return ""
	}
	return *v
}

// maxChars: "characters" are Unicode code points.
func maxChars(v *string, key string, max int, errs fieldErrors) {
	if v != nil && utf8.RuneCountInString(*v) > max {
		errs.add(key, fmt.Sprintf("must be at most %d characters", max))
	}
}

func oneOf(v *string, key string, allowed []string, errs fieldErrors) {
	if v == nil {
		return
	}
	for _, a := range allowed {
		if *v == a {
			return
		}
	}
	errs.add(key, "must be one of "+strings.Join(allowed, ", "))
}

// The WHATWG HTML "valid e-mail address", with one stricter choice: the domain needs a dot.
var emailRe = regexp.MustCompile("^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$")

func validEmail(v string, bugs bugSet) bool {
	if bugs.on("email-parseaddress") {
		_, err := mail.ParseAddress(v)
		return err == nil
	}
	return emailRe.MatchString(v)
}

var contactTypes = []string{"CLIENT", "SUPPLIER", "BOTH"}
var productTypes = []string{"PRODUCT", "SERVICE"}
var invoiceStatuses = []string{"DRAFT", "SENT", "PAID", "OVERDUE", "VOIDED"}
var expenseStatuses = []string{"DRAFT", "APPROVED", "PAID", "REJECTED"}

type contactInput struct {
	Type, Name                      string
	Email, Phone, Address, TPS, TVQ *string
}

func parseContact(m map[string]json.RawMessage, bugs bugSet) (contactInput, fieldErrors) {
	errs := fieldErrors{}
	in := contactInput{}
	in.Type = reqString(m, "type", errs)
	if in.Type != "" {
		oneOf(&in.Type, "type", contactTypes, errs)
	}
	in.Name = reqString(m, "name", errs)
	if bugs.on("name-bytes") {
		if len(in.Name) > 200 {
			errs.add("name", "must be at most 200 characters")
		}
	} else {
		maxChars(&in.Name, "name", 200, errs)
	}
	opt := optString
	if bugs.on("null-as-text") {
		// the optional fields went through a map[string]any and fmt.Sprint
		opt = func(m map[string]json.RawMessage, key string, errs fieldErrors) *string {
			raw, ok := m[key]
			if !ok {
				return nil
			}
			if isNull(raw) {
				v := fmt.Sprint(nil)
				return &v
			}
			return stringValue(raw, key, errs)
		}
	}
	in.Email = optString(m, "email", errs)
	if in.Email != nil && !validEmail(*in.Email, bugs) {
		errs.add("email", "must be a valid e-mail address")
	}
	if in.Email != nil && bugs.on("email-lowercased") {
		v := strings.ToLower(*in.Email)
		in.Email = &v
	}
	in.Phone = opt(m, "phone", errs)
	if bugs.on("phone-off-by-one") {
		if in.Phone != nil && utf8.RuneCountInString(*in.Phone) >= 50 {
			errs.add("phone", "must be at most 50 characters")
		}
	} else {
		maxChars(in.Phone, "phone", 50, errs)
	}
	in.Address = opt(m, "address", errs)
	maxChars(in.Address, "address", 500, errs)
	in.TPS = opt(m, "taxNumberTPS", errs)
	maxChars(in.TPS, "taxNumberTPS", 50, errs)
	in.TVQ = opt(m, "taxNumberTVQ", errs)
	if bugs.on("tvq-unchecked") {
		maxChars(in.TPS, "taxNumberTPS", 50, errs)
	} else {
		maxChars(in.TVQ, "taxNumberTVQ", 50, errs)
	}
	return in, errs
}

type productInput struct {
	SKU, Name, Type string
	Description     *string
	UnitPrice       money
	Taxable         bool
}

// The largest price accepted: 9 999 999 999.9999 (documented in README).
var maxPrice = big.NewInt(99999999999999)

var exponentRe = regexp.MustCompile(`[eE]([+-]?)0*(\d+)$`)

// parsePrice reads a JSON number exactly (no binary float) into 1/10000 units.
func parsePrice(raw string) (money, string) {
	if mm := exponentRe.FindStringSubmatch(raw); mm != nil && len(mm[2]) > 3 {
		return 0, "is out of range"
	}
	r, ok := new(big.Rat).SetString(raw)
	if !ok {
		return 0, "must be a number"
	}
	if r.Sign() < 0 {
		return 0, "must be greater than or equal to 0"
	}
	r.Mul(r, big.NewRat(10000, 1))
	if !r.IsInt() {
		return 0, "must have at most 4 decimal places"
	}
	if r.Num().Cmp(maxPrice) > 0 {
		return 0, "must be at most 9999999999.9999"
	}
	return money(r.Num().Int64()), ""
}

// The buggy parsers of the switchable defects.
func parsePriceFloat(raw string) (money, string) {
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || f < 0 || f > 9999999999.9999 {
		return 0, "must be a number between 0 and 9999999999.9999"
	}
	return money(int64(f * 10000)), ""
}

func parsePriceSplit(raw string) (money, string) {
	if strings.ContainsAny(raw, "eE") {
		return parsePrice(raw)
	}
	intPart, frac, _ := strings.Cut(raw, ".")
	n, err := strconv.ParseInt(intPart, 10, 64)
	if err != nil || n < 0 || n > 9999999999 {
		return 0, "must be a number between 0 and 9999999999.9999"
	}
	if len(frac) > 4 {
		return 0, "must have at most 4 decimal places"
	}
	f, _ := strconv.ParseInt((frac + "0000")[:4], 10, 64)
	return money(n*10000 + f), ""
}

func parseProduct(m map[string]json.RawMessage, bugs bugSet) (productInput, fieldErrors) {
	errs := fieldErrors{}
	in := productInput{Type: "PRODUCT", Taxable: true}
	in.SKU = reqString(m, "sku", errs)
	if bugs.on("sku-trim-check") {
		if utf8.RuneCountInString(strings.TrimSpace(in.SKU)) > 100 {
			errs.add("sku", "must be at most 100 characters")
		}
	} else {
		maxChars(&in.SKU, "sku", 100, errs)
	}
	in.Name = reqString(m, "name", errs)
	maxChars(&in.Name, "name", 200, errs)
	in.Description = optString(m, "description", errs)
	if bugs.on("description-bytes") {
		if in.Description != nil && len(*in.Description) > 2000 {
			errs.add("description", "must be at most 2000 characters")
		}
	} else {
		maxChars(in.Description, "description", 2000, errs)
	}
	if t := optString(m, "type", errs); t != nil {
		oneOf(t, "type", productTypes, errs)
		in.Type = *t
	} else if bugs.on("type-default-empty") {
		in.Type = ""
	}
	raw, ok := m["unitPrice"]
	switch {
	case !ok || isNull(raw):
		errs.add("unitPrice", "is required")
	case raw[0] == '"' && bugs.on("price-string"):
		var s string
		_ = json.Unmarshal(raw, &s)
		if !json.Valid([]byte(s)) || s == "" || s[0] == '"' || s[0] == '{' || s[0] == '[' {
			errs.add("unitPrice", "must be a number")
		} else if p, msg := parsePrice(s); msg != "" {
			errs.add("unitPrice", msg)
		} else {
			in.UnitPrice = p
		}
	case raw[0] != '-' && (raw[0] < '0' || raw[0] > '9'):
		errs.add("unitPrice", "must be a number")
	default:
		parse := parsePrice
		if bugs.on("price-float-trunc") {
			parse = parsePriceFloat
		} else if bugs.on("price-neg-fraction") {
			parse = parsePriceSplit
		}
		if p, msg := parse(string(raw)); msg != "" {
			errs.add("unitPrice", msg)
		} else {
			in.UnitPrice = p
		}
	}
	if raw, ok := m["taxable"]; ok && !isNull(raw) {
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			errs.add("taxable", "must be a boolean")
		} else {
			in.Taxable = b
		}
	} else if bugs.on("taxable-default-false") {
		in.Taxable = false
	}
	return in, errs
}
