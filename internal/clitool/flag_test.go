package clitool

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

// TestFlagSchema pins the schema of each kind of value, including the
// defaults that are not announced.
func TestFlagSchema(t *testing.T) {
	for _, tc := range []struct {
		flag Flag
		want string
	}{
		{Flag{Value: true}, `{"default":true,"type":"boolean"}`},
		{Flag{Value: false}, `{"type":"boolean"}`},
		{Flag{Value: "x", Usage: "u"}, `{"default":"x","description":"u","type":"string"}`},
		{Flag{Value: "", Path: true}, `{"description":"(a path)","type":"string"}`},
		{Flag{Value: int16(3)}, `{"default":3,"maximum":32767,"minimum":-32768,"type":"integer"}`},
		{Flag{Value: uint32(0)}, `{"maximum":4294967295,"minimum":0,"type":"integer"}`},
		{Flag{Value: uint64(7), Required: true}, `{"minimum":0,"type":"integer"}`},
		{Flag{Value: 2.5, FromEnv: true}, `{"type":"number"}`},
		{Flag{Value: math.Inf(1)}, `{"type":"number"}`},
		{Flag{Value: float32(0.1)}, `{"default":0.1,"type":"number"}`},
		{Flag{Value: 90 * time.Second, Usage: "wait"}, `{"default":"1m30s","description":"wait (a duration such as \"1m30s\")","pattern":"^(\\d+(\\.\\d*)?(ns|us|µs|ms|s|m|h))+$|^0$","type":"string"}`},
		{Flag{Value: []string{"a", "b"}}, `{"default":["a","b"],"items":{"type":"string"},"type":"array"}`},
		{Flag{Value: []int8(nil)}, `{"items":{"maximum":127,"minimum":-128,"type":"integer"},"type":"array"}`},
		{Flag{Value: []time.Duration{time.Second}}, `{"default":["1s"],"description":"(a duration such as \"1m30s\")","items":{"pattern":"^(\\d+(\\.\\d*)?(ns|us|µs|ms|s|m|h))+$|^0$","type":"string"},"type":"array"}`},
		{Flag{Value: time.Now()}, `null`},
		{Flag{Value: map[string]string{}}, `null`},
		{Flag{Value: [][]string{}}, `null`},
		{Flag{}, `null`},
	} {
		got, err := json.Marshal(tc.flag.schema())
		if err != nil || string(got) != tc.want {
			t.Errorf("%T %v: %s %v\n want %s", tc.flag.Value, tc.flag.Value, got, err, tc.want)
		}
	}
}
