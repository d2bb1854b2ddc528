// SPDX-License-Identifier: MIT
/* boot-unit: whether ibvf's boot unit will run at the next boot and create
 * the node's VFs again (core/persist/boot.h: present, not masked, enabled,
 * every program it starts on the node). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "checks_int.h"
#include "core/persist/boot.h"
#include "core/persist/persist.h"

CHECK_FN(check_boot_unit)
{
	(void)o;
	const struct check_def *def = check_find("boot-unit");
	const struct boot_unit *b = &n->boot_unit;
	size_t vfs = 0, pfs = 0;
	for (size_t i = 0; i < n->n_pfs; i++)
		if (n->pfs[i].n_vfs) {
			vfs += n->pfs[i].n_vfs;
			pfs++;
		}
	/* No unit at all: the node's VFs are not ibvf's to keep (another tool,
	 * or none: sriov-layout and the console say what persist would do). */
	if (!b->path || b->masked || boot_unit_runs(n, NULL, 0))
		return;
	char why[512];
	boot_unit_runs(n, why, sizeof(why));
	struct finding *f = check_add(out, def, SUBJECT_NODE, NULL,
				      "%s will not run at the next boot: %s", PERSIST_UNIT, why);
	if (!f)
		return;
	finding_evidence(f, b->path, "the unit (%zu ExecStart= lines)", b->n_execs);
	if (b->error)
		finding_evidence(f, b->path, "%s", b->error);
	if (!b->enabled_by)
		finding_evidence(f, "/etc/systemd/system/multi-user.target.wants",
				 "no link to %s in any .wants/ or .requires/ directory",
				 PERSIST_UNIT);
	else
		finding_evidence(f, b->enabled_by, "enabled");
	if (b->bad_exec)
		finding_evidence(f, b->bad_exec_file, "line %u: '%s': %s", b->bad_exec_line,
				 b->bad_exec, strerror(b->bad_exec_errno));
	if (vfs)
		finding_evidence(f, "/sys/bus/pci/devices/*/sriov_numvfs",
				 "%zu VFs on %zu PFs now, none after the reboot", vfs, pfs);
	if (!b->enabled_by && !b->bad_exec && !b->error)
		finding_remedy_manual(f, "enable the unit ('ibvf persist' writes and enables it)",
				      (const char *const[]){"systemctl enable " PERSIST_UNIT,
							    "ibvf persist", NULL});
	else
		finding_remedy_ibvf(f,
				    "write the unit anew for this node and this ibvf, enabled "
				    "(persist)",
				    (const char *const[]){"persist", NULL});
}
