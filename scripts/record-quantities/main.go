// Records Go's resource.ParseQuantity and Quantity.String() (k8s.io/apimachinery of the referee's
// release) on a corpus of quantity texts, one JSON object per line: the text as sent and Go's
// error, or its String(), exact value (unscaled × 10^-scale) and format. The library's port
// (packages/controller-runtime/src/api/quantity.ts) is tested against the file this writes:
//
//	cd scripts/record-quantities && GOFLAGS=-mod=mod go run . > ../../packages/controller-runtime/src/api/quantity.recorded.jsonl
//
// Exponents stay below 10^4: Go builds 10^|exponent| out, and at ±2^31 it takes minutes.
package main

import (
	"encoding/json"
	"os"
	"strconv"

	"k8s.io/apimachinery/pkg/api/resource"
)

func main() {
	numbers := []string{"0", "1", "12", "100", "1000", "1024", "1536", "0.5", "1.5", ".5", "5.", ".", "00",
		"007", "-0", "+5", "-1.25", "123456789012345678", "1234567890123456789", "99999999999999999999",
		"0.000000001", "0.0000000001", "-0.0000000001"}
	suffixes := []string{"", "m", "u", "n", "k", "K", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi",
		"Ei", "e3", "E3", "e-3", "e+3", "e0", "e-12", "e30", "i", "kk", "e", "e+", "Zi", "mi", "x"}
	var corpus []string
	for _, n := range numbers {
		for _, s := range suffixes {
			corpus = append(corpus, n+s)
		}
	}
	corpus = append(corpus, "", "Mi", "m", "-", "+", "e3", ".e3", "1 ", " 1", "1,5", "0x10", "1e1000",
		"1e-1000", "8Ei", "9Ei", "16Ei", "0.5Ki", "1.1Ki", "1000E", "1000000E", "1e21", "1e+21", "3.0",
		"1.000000001", "1.0000000001", "1.G", "1Mii", "2e-3Mi", "1.5Gi", "0.1n", "-0.1n", "500Mi")
	enc := json.NewEncoder(os.Stdout)
	for _, in := range corpus {
		q, err := resource.ParseQuantity(in)
		if err != nil {
			enc.Encode(map[string]string{"in": in, "err": err.Error()})
			continue
		}
		d := q.AsDec()
		enc.Encode(map[string]string{"in": in, "str": q.String(), "unscaled": d.UnscaledBig().String(),
			"scale": strconv.Itoa(int(d.Scale())), "format": string(q.Format)})
	}
}
