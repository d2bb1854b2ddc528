{{/* The labels every object gets: the kustomize base's part-of, Helm's own, and commonLabels. */}}
{{- define "ibvf.labels" -}}
app.kubernetes.io/part-of: ibvf
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* The image of every container. */}}
{{- define "ibvf.image" -}}
{{- $r := required "values: image.repository is empty" .Values.image.repository -}}
{{- if .Values.image.tag }}{{ printf "%s:%s" $r .Values.image.tag }}{{ else }}{{ $r }}{{ end -}}
{{- end -}}

{{/*
A manifest of deploy/kubernetes (read through files/) as the chart's object:
in the release's namespace, the labels above added to its own and, in a pod
template, part-of in the selector and the pod's labels (as kustomize's
labels with includeSelectors), every container's image and pull policy
set. Argument: (list $ "files/NAME.yaml").
*/}}
{{- define "ibvf.object" -}}
{{- $top := index . 0 -}}
{{- $o := $top.Files.Get (index . 1) | fromYaml -}}
{{- $labels := include "ibvf.labels" $top | fromYaml -}}
{{- $_ := set $o.metadata "namespace" $top.Release.Namespace -}}
{{- $_ := set $o.metadata "labels" (merge (dict) ($o.metadata.labels | default dict) $labels) -}}
{{- if and $o.spec (hasKey $o.spec "template") -}}
{{- $part := dict "app.kubernetes.io/part-of" "ibvf" -}}
{{- $tm := $o.spec.template.metadata -}}
{{- $_ := set $tm "labels" (merge (dict) $tm.labels $part) -}}
{{- if $o.spec.selector -}}
{{- $_ := set $o.spec.selector "matchLabels" (merge (dict) $o.spec.selector.matchLabels $part) -}}
{{- end -}}
{{- range $o.spec.template.spec.containers -}}
{{- $_ := set . "image" (include "ibvf.image" $top) -}}
{{- $_ := set . "imagePullPolicy" $top.Values.image.pullPolicy -}}
{{- end -}}
{{- else if and $o.spec $o.spec.selector -}}
{{- $_ := set $o.spec "selector" (merge (dict) $o.spec.selector (dict "app.kubernetes.io/part-of" "ibvf")) -}}
{{- end -}}
{{- toYaml $o -}}
{{- end -}}
