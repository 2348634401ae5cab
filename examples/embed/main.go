// Command embed is a sabline command with a host module of its own, geo:
// the way a program embeds Sabline. It registers the module, then hands
// over (sabline.HandOver), so that the worker (this same binary, started
// again) has the module too and never runs the command line again; then it
// hands the command line to cli.Main.
//
//	go run ./examples/embed examples/embed/distance.vel --allow io,ffi:geo --confine strict
//
// geo is not in the confinement table, so granting it widens the OS policy
// to nothing enforced, and the run says so, unless --confine strict holds
// the module to the budget like the rest of the run.
package main

import (
	"fmt"
	"math"
	"os"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/cli"
	"github.com/sabline/sabline/lang"
)

func main() {
	lang.RegisterModule("geo", geoModule)
	sabline.HandOver()
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// geoModule has one function, distance(lat1, lon1, lat2, lon2): the
// great-circle distance in kilometres. It does no I/O.
func geoModule() starlark.Value {
	return &starlarkstruct.Module{Name: "geo", Members: starlark.StringDict{
		"distance": starlark.NewBuiltin("geo.distance", distance),
	}}
}

func distance(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
	kwargs []starlark.Tuple) (starlark.Value, error) {
	var lat1, lon1, lat2, lon2 float64
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 4,
		&lat1, &lon1, &lat2, &lon2); err != nil {
		return nil, err
	}
	if math.Abs(lat1) > 90 || math.Abs(lat2) > 90 {
		return nil, fmt.Errorf("%s: a latitude is between -90 and 90", b.Name())
	}
	rad := math.Pi / 180
	h := math.Pow(math.Sin((lat2-lat1)*rad/2), 2) +
		math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Pow(math.Sin((lon2-lon1)*rad/2), 2)
	return starlark.Float(2 * 6371 * math.Asin(math.Sqrt(h))), nil
}
