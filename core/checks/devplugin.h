/* SPDX-License-Identifier: MIT */
/* Shared by the device plugin checks (checks_dp.c) and what their findings
 * say (checks_dp_say.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "checks.h"
#include "core/pods/devplugin.h"

#define LIST_SHOWN 8 /* values or devices named in one evidence line */

/* Every function of the node, as the plugins see them: PFs and VFs. */
struct dev {
	const struct pf *pf;
	const struct vf *vf;
};

struct devs {
	struct dev *v;
	size_t n;
};

/* A string from a file, as JSON writes it: quoted, control bytes escaped. */
const char *dp_quoted(const char *s, char *buf, size_t size);
/* A path or message for a title or evidence: bytes below space become '?'. */
const char *dp_clean(const char *s, char *buf, size_t size);
/* The resource as the file writes it: name, prefix, selectors. */
void dp_evidence_resource(struct finding *f, const struct dp_config *c, const struct dp_resource *r,
			  const char *where);
/* Which selector lists exclude every candidate device (cand[i] for d->v[i]). */
void dp_explain(struct finding *f, const struct dp_config *c, const struct dp_resource *r,
		const struct devs *d, const bool *cand);
/* The manual steps: find the ConfigMap, give the resource the selectors
 * that pick the node's compute devices (change says how), restart the
 * plugin, check the node's allocatable count. */
void dp_remedy(struct finding *f, const struct node *n, const struct dp_config *c,
	       const struct dp_resource *r, const char *change);
