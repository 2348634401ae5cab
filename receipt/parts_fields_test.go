package receipt

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
)

// notReported marks, in receiptParts, a field that is not the worker's
// word once the program could have run: what the supervisor saw, was
// asked or timed, or what the worker's record said before the program's
// first statement.
const notReported = ""

// receiptParts classifies every leaf of a receipt (its JSON path, as
// receiptLeaves finds it) by whose word it is: notReported, or the
// reported field (a Field constant) that names it when the worker
// reported it.
var receiptParts = map[string]string{
	"schema": notReported, "run_id": notReported, "budget": notReported, "args": notReported,
	"args_cut.sha256": notReported, "args_cut.count": notReported, "args_cut.bytes": notReported,
	"args_cut.kept_count": notReported, "args_cut.kept_bytes": notReported,
	"sabline.version": notReported, "sabline.knockout": notReported,
	"sabline.commit": notReported, "sabline.modified": notReported,
	"program.path": notReported, "program.sha256": notReported,
	"program.files":              FieldFiles, // a pool's worker sends them with its result
	"run_parameters.confinement": notReported, "run_parameters.confinement_reason": notReported,
	"run_parameters.confinement_layers": notReported, "run_parameters.confinement_gaps": notReported,
	"run_parameters.os_policy_sha256": notReported,
	"run_parameters.confine":          notReported, "run_parameters.require_confinement": notReported,
	"run_parameters.timeout_ms": notReported, "run_parameters.max_memory_mb": notReported,
	"run_parameters.credentials_lent": notReported, "run_parameters.durability": notReported,
	"run_parameters.durability_window_ms": notReported, "observed.signal": notReported,
	"observed.exit_status": notReported, "observed.user_ms": notReported,
	"observed.system_ms": notReported, "observed.max_rss_kb": notReported,
	"observed.stdout_bytes": notReported, "observed.stderr_bytes": notReported,
	"observed.made": notReported, // made by the supervisor before the worker started
	// Made, or refused, by the supervisor: the host and port are what the
	// program asked for, the rest is the supervisor's and the kernel's.
	"observed.connections": notReported, "observed.connections_unlisted": notReported,
	// A pool's worker keeps the output it sends back, and counts it; a
	// run of its own the supervisor counts, as it relays it.
	"stdout_cut.bytes": FieldStdoutCut, "stdout_cut.kept_bytes": FieldStdoutCut,
	"reported.fields": notReported, "reported.testimony": notReported,
	"outcome.status": FieldOutcome, "outcome.code": FieldOutcome, "outcome.message": FieldOutcome,
	"outcome.exit_status": FieldOutcome,
	"outcome.position":    FieldPosition, "outcome.stack": FieldPosition,
	"effects":         FieldEffects,
	"fault_injection": notReported,
	"timings.started": notReported, "timings.wall_ms": notReported,
	"timings.worker.compile_ms": FieldWorkerTimings, "timings.worker.confine_ms": FieldWorkerTimings,
	"timings.worker.run_ms": FieldWorkerTimings,
	"platform.os":           notReported, "platform.arch": notReported, "platform.kernel": notReported, "platform.go": notReported,
	"crash_report": notReported, "cut": notReported, "tenant": notReported,
}

// receiptLeaves lists the JSON paths of t's fields, descending into the
// structs (and pointers to them) that have exported fields: a slice, a
// string, a number or a struct of no exported field (time.Time) is a
// leaf. inner lists the paths it descended into.
func receiptLeaves(t reflect.Type, prefix string) (leaves, inner []string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		path := prefix + name
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct {
			if sub, subInner := receiptLeaves(ft, path+"."); len(sub) > 0 {
				leaves, inner = append(leaves, sub...), append(append(inner, path), subInner...)
				continue
			}
		}
		leaves = append(leaves, path)
	}
	return leaves, inner
}

// TestEveryReportedFieldIsMarked: every field of a receipt is classified
// (receiptParts) as the worker's report after the program could have run,
// or not; a field added to the receipt without saying which fails here.
// Each field the worker reports is one a receipt can name among its
// reported fields (reportable), and a receipt that names them all, as
// testimony, parses and says so of each; a receipt that names a field the
// supervisor saw, or the worker said before the program, is refused.
func TestEveryReportedFieldIsMarked(t *testing.T) {
	leaves, inner := receiptLeaves(reflect.TypeOf(Receipt{}), "")
	if !slices.Contains(leaves, "outcome.status") || !slices.Contains(leaves, "observed.stdout_bytes") || !slices.Contains(inner, "timings.worker") {
		t.Fatalf("the walk of the receipt's fields found %q (within %q): want outcome.status, observed.stdout_bytes, within timings.worker", leaves, inner)
	}
	for _, p := range leaves {
		if _, ok := receiptParts[p]; !ok {
			t.Errorf("the receipt's field %s is not classified: say whether the worker reports it once the program could have run (then it is a Field constant in reportable, and Reported names it) or not", p)
		}
	}
	for p := range receiptParts {
		if !slices.Contains(leaves, p) {
			t.Errorf("receiptParts classifies %s, which is no field of the receipt", p)
		}
	}
	reportedBy := map[string]bool{}
	for p, f := range receiptParts {
		if f == notReported {
			continue
		}
		reportedBy[f] = true
		if !slices.Contains(reportable, f) {
			t.Errorf("%s is the worker's word (%s), but reportable does not list %q: a receipt could not mark it reported, nor testimony", p, f, f)
		}
	}
	for _, f := range reportable {
		if !slices.Contains(leaves, f) && !slices.Contains(inner, f) {
			t.Errorf("reportable lists %q, which is no field of the receipt", f)
		}
		if !reportedBy[f] {
			t.Errorf("reportable lists %q, which receiptParts does not say the worker reports", f)
		}
	}

	type partsCase struct {
		name          string
		fields        []string
		wantErr       string // "" when the receipt parses
		wantTestimony bool
	}
	tests := []partsCase{{name: "every reported field, as testimony", fields: slices.Sorted(maps.Keys(reportedBy)), wantTestimony: true}}
	for _, p := range leaves {
		if f, ok := receiptParts[p]; ok && f == notReported {
			tests = append(tests, partsCase{name: "not the worker's report: " + p, fields: []string{p}, wantErr: "which no worker of this build reports"})
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New("/p/a.vel", budget.MustParse("/", "io"), nil)
			r.Reported = &Reported{Fields: tt.fields, Testimony: "ffi:ctypes is granted"}
			data, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Parse("r.json", data)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse of a receipt whose reported fields are %q: %v, want an error saying %q", tt.fields, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse of a receipt whose reported fields are %q: %v", tt.fields, err)
			}
			if (got.Testimony() != "") != tt.wantTestimony || !reflect.DeepEqual(got.Reported.Fields, tt.fields) {
				t.Errorf("reported %q, testimony %q; want %q, marked testimony: %v", got.Reported.Fields, got.Testimony(), tt.fields, tt.wantTestimony)
			}
			parts := got.Parts()
			for _, f := range tt.fields {
				if !strings.Contains(parts, f) {
					t.Errorf("Parts() = %q does not name %s", parts, f)
				}
			}
			if !strings.Contains(parts, "TESTIMONY") {
				t.Errorf("Parts() = %q does not mark the reported fields testimony", parts)
			}
		})
	}
}
