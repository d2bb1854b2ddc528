// SPDX-License-Identifier: MIT
// helmtemplate: `helm template` for the chart in deploy/helm/ibvf, where helm
// is not packaged (Debian bookworm): text/template with Helm's function set
// (sprig v3 plus toYaml, fromYaml, include, tpl, required), the chart's
// templates/ parsed together, .Values from values.yaml deep-merged with each
// -f file, .Chart from Chart.yaml, .Release (name, namespace) and .Files.Get.
// As Helm does: missing keys render empty, files whose output is blank are
// left out, toYaml drops its trailing newline.
//
// Build offline: GO111MODULE=off GOPATH=/usr/share/gocode go build
//
//	helmtemplate [-f values.yaml]... [-n NAMESPACE] RELEASE CHARTDIR
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	yaml2 "gopkg.in/yaml.v2"
	yaml3 "gopkg.in/yaml.v3"
)

// valueError: what required and fail say, shown alone as Helm shows it.
type valueError struct{ msg string }

func (e valueError) Error() string { return e.msg }

type files struct{ dir string }

// Get is Helm's .Files.Get: the file's text, "" when it cannot be read.
func (f files) Get(name string) string {
	b, err := os.ReadFile(filepath.Join(f.dir, filepath.Clean("/"+name)))
	if err != nil {
		return ""
	}
	return string(b)
}

type valueFiles []string

func (v *valueFiles) String() string     { return strings.Join(*v, ",") }
func (v *valueFiles) Set(s string) error { *v = append(*v, s); return nil }

func readYAML(path string) (map[string]interface{}, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := map[string]interface{}{}
	if err := yaml3.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return m, nil
}

// merge: src over dst, maps merged key by key, anything else replaced.
func merge(dst, src map[string]interface{}) map[string]interface{} {
	for k, v := range src {
		if sm, ok := v.(map[string]interface{}); ok {
			if dm, ok := dst[k].(map[string]interface{}); ok {
				dst[k] = merge(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
	return dst
}

func toYaml(v interface{}) string {
	b, err := yaml2.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(b), "\n")
}

func fromYaml(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := yaml3.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func main() {
	var vf valueFiles
	flag.Var(&vf, "f", "a values file over the chart's values.yaml (repeatable)")
	ns := flag.String("n", "default", "the release's namespace")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: helmtemplate [-f values.yaml]... [-n NAMESPACE] RELEASE CHARTDIR")
		os.Exit(2)
	}
	release, dir := flag.Arg(0), flag.Arg(1)
	if err := run(release, dir, *ns, vf); err != nil {
		var ve valueError
		if errors.As(err, &ve) {
			err = ve
		}
		fmt.Fprintf(os.Stderr, "helmtemplate: %v\n", err)
		os.Exit(1)
	}
}

func run(release, dir, ns string, vf []string) error {
	chart, err := readYAML(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return err
	}
	values, err := readYAML(filepath.Join(dir, "values.yaml"))
	if err != nil {
		return err
	}
	for _, f := range vf {
		m, err := readYAML(f)
		if err != nil {
			return err
		}
		values = merge(values, m)
	}
	// .Chart's fields as Helm names them (name: Name, appVersion: AppVersion).
	chartData := map[string]interface{}{}
	for k, v := range chart {
		chartData[strings.ToUpper(k[:1])+k[1:]] = v
	}
	data := map[string]interface{}{
		"Values":  values,
		"Chart":   chartData,
		"Release": map[string]interface{}{"Name": release, "Namespace": ns, "Service": "Helm", "IsInstall": true, "IsUpgrade": false, "Revision": 1},
		"Files":   files{dir},
	}

	root := template.New("gotpl").Option("missingkey=zero")
	funcs := sprig.TxtFuncMap()
	funcs["toYaml"] = toYaml
	funcs["fromYaml"] = fromYaml
	funcs["required"] = func(msg string, v interface{}) (interface{}, error) {
		if v == nil || v == "" {
			return nil, valueError{msg}
		}
		return v, nil
	}
	funcs["fail"] = func(msg string) (string, error) { return "", valueError{msg} }
	funcs["include"] = func(name string, d interface{}) (string, error) {
		var b bytes.Buffer
		err := root.ExecuteTemplate(&b, name, d)
		return b.String(), err
	}
	funcs["tpl"] = func(text string, d interface{}) (string, error) {
		t, err := root.Clone()
		if err != nil {
			return "", err
		}
		t, err = t.New("tpl").Parse(text)
		if err != nil {
			return "", err
		}
		var b bytes.Buffer
		err = t.Execute(&b, d)
		return b.String(), err
	}
	root.Funcs(funcs)

	tdir := filepath.Join(dir, "templates")
	entries, err := os.ReadDir(tdir)
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !(strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".tpl")) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(tdir, n))
		if err != nil {
			return err
		}
		name := filepath.Join(filepath.Base(dir), "templates", n)
		if _, err := root.New(name).Parse(string(b)); err != nil {
			return err
		}
		if !strings.HasPrefix(n, "_") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		var b bytes.Buffer
		if err := root.ExecuteTemplate(&b, name, data); err != nil {
			return err
		}
		out := strings.ReplaceAll(b.String(), "<no value>", "")
		if strings.TrimSpace(out) == "" {
			continue
		}
		fmt.Printf("---\n# Source: %s\n%s\n", name, strings.TrimSpace(out))
	}
	return nil
}
