/* SPDX-License-Identifier: MIT */
/* The node as JSON (json-c). This is the one serialisation of the model:
 * `ibvf list --json` prints it and the text tree is rendered from it, so the
 * two cannot drift apart. Unknown values are null. */
#pragma once

#include <json-c/json.h>

#include "core/model/node.h"

/* Every JSON document ibvf prints carries "version": this (docs/json.md:
 * bumped when a field is renamed, removed or added; schemas/ pin it). */
#define JSON_DOC_VERSION  2
#define NODE_JSON_VERSION JSON_DOC_VERSION

struct json_object *node_to_json(const struct node *n);
/* The pod-centred view (`ibvf list --pods`): one object per pod with the VFs
 * it holds, bindings of the same UID (else namespace/name) grouped. NULL when
 * out of memory. */
struct json_object *node_pods_to_json(const struct node *n);
