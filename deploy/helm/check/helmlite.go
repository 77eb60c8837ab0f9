// helmlite: renders a Helm chart's templates the way `helm template` does (text/template + sprig +
// include/tpl/required/fail/toYaml), for checking the chart on machines without helm (check.sh).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/ioutil"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	yaml "gopkg.in/yaml.v2"
)

func normalize(v interface{}) interface{} {
	switch t := v.(type) {
	case map[interface{}]interface{}:
		m := map[string]interface{}{}
		for k, val := range t {
			m[fmt.Sprint(k)] = normalize(val)
		}
		return m
	case []interface{}:
		for i := range t {
			t[i] = normalize(t[i])
		}
		return t
	case int:
		return float64(t)
	}
	return v
}

func loadYaml(path string) map[string]interface{} {
	data, err := ioutil.ReadFile(path)
	if err != nil {
		panic(err)
	}
	var raw interface{}
	if err := yaml.Unmarshal(data, &raw); err != nil {
		panic(fmt.Sprintf("%s: %v", path, err))
	}
	if raw == nil {
		return map[string]interface{}{}
	}
	return normalize(raw).(map[string]interface{})
}

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
	// Helm: sigs.k8s.io/yaml (JSON first, then YAML).
	j, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	var back interface{}
	yaml.Unmarshal(j, &back)
	out, err := yaml.Marshal(back)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(out), "\n")
}

func main() {
	chartDir := os.Args[1]
	valueFiles := os.Args[2:]
	chart := loadYaml(filepath.Join(chartDir, "Chart.yaml"))
	values := loadYaml(filepath.Join(chartDir, "values.yaml"))
	for _, f := range valueFiles {
		values = merge(values, loadYaml(f))
	}
	chartName := chart["name"].(string)
	top := map[string]interface{}{
		"Values":       values,
		"Chart":        map[string]interface{}{"Name": chartName, "Version": chart["version"], "AppVersion": chart["appVersion"]},
		"Release":      map[string]interface{}{"Name": "platform", "Namespace": "agents", "Service": "Helm", "IsInstall": true, "IsUpgrade": false},
		"Capabilities": map[string]interface{}{"KubeVersion": map[string]interface{}{"Version": "v1.30.0"}},
		"Template":     map[string]interface{}{"BasePath": chartName + "/templates", "Name": ""},
	}
	root := template.New("root").Option("missingkey=zero")
	funcs := sprig.TxtFuncMap()
	funcs["include"] = func(name string, data interface{}) (string, error) {
		var buf bytes.Buffer
		err := root.ExecuteTemplate(&buf, name, data)
		return buf.String(), err
	}
	funcs["tpl"] = func(text string, data interface{}) (string, error) {
		t, err := root.Clone()
		if err != nil {
			return "", err
		}
		t, err = t.New("tpl").Parse(text)
		if err != nil {
			return "", err
		}
		var buf bytes.Buffer
		err = t.Execute(&buf, data)
		return buf.String(), err
	}
	funcs["required"] = func(msg string, v interface{}) (interface{}, error) {
		if v == nil || v == "" {
			return nil, fmt.Errorf("%s", msg)
		}
		return v, nil
	}
	funcs["fail"] = func(msg string) (string, error) { return "", fmt.Errorf("%s", msg) }
	funcs["toYaml"] = toYaml
	funcs["lookup"] = func(...interface{}) map[string]interface{} { return map[string]interface{}{} }
	root.Funcs(funcs)

	files, _ := filepath.Glob(filepath.Join(chartDir, "templates", "*"))
	sort.Strings(files)
	var names []string
	for _, f := range files {
		data, _ := ioutil.ReadFile(f)
		name := chartName + "/templates/" + filepath.Base(f)
		if _, err := root.New(name).Parse(string(data)); err != nil {
			fmt.Fprintf(os.Stderr, "PARSE ERROR %s: %v\n", name, err)
			os.Exit(1)
		}
		names = append(names, name)
	}
	failed := false
	for _, name := range names {
		if strings.HasPrefix(filepath.Base(name), "_") {
			continue
		}
		top["Template"].(map[string]interface{})["Name"] = name
		var buf bytes.Buffer
		if err := root.ExecuteTemplate(&buf, name, top); err != nil {
			fmt.Fprintf(os.Stderr, "RENDER ERROR %s: %v\n", name, err)
			failed = true
			continue
		}
		out := strings.ReplaceAll(buf.String(), "<no value>", "")
		if strings.HasSuffix(name, "NOTES.txt") {
			if os.Getenv("HELMLITE_NOTES") != "" {
				fmt.Fprintf(os.Stderr, "%s\n", out)
			}
			continue
		}
		fmt.Printf("---\n# Source: %s\n%s\n", name, out)
	}
	if failed {
		os.Exit(1)
	}
}
