// SPDX-License-Identifier: MIT
/* One row model for the PF -> VF tree (rows.h). */
#include "rows.h"

#include <stdio.h>
#include <string.h>

#include "core/base/guid.h"
#include "core/pods/pods.h"

const char *const row_headers[RC_N] = {
	[RC_DEVICE] = "DEVICE", [RC_DRIVER] = "DRIVER",	      [RC_NETDEV] = "NETDEV",
	[RC_IBDEV] = "IBDEV",	[RC_STATE] = "STATE",	      [RC_PHYS] = "PHYS",
	[RC_RATE] = "RATE",	[RC_LINK] = "LINK",	      [RC_FW] = "FIRMWARE",
	[RC_VFS] = "VFS",	[RC_NODE_GUID] = "NODE GUID", [RC_PORT_GUID] = "PORT GUID",
	[RC_POD] = "POD",
};

static void put(char cell[ROW_CELL_MAX], const char *s, const char *dflt)
{
	snprintf(cell, ROW_CELL_MAX, "%s", s && *s ? s : dflt);
}

static void put_guid(char cell[ROW_CELL_MAX], struct kguid g)
{
	char buf[GUID_STRLEN];
	if (!g.known) {
		put(cell, "?", "?");
		return;
	}
	guid_format_sysfs(g.v, buf);
	put(cell, buf, "?");
}

void row_cells(const struct pf *pf, const struct vf *vf, const struct rdma *orphan,
	       char cells[RC_N][ROW_CELL_MAX])
{
	const struct fn *f = vf ? &vf->fn : pf ? &pf->fn : NULL;
	const struct rdma *rd = f ? fn_rdma(f) : orphan;
	const struct port *p = f ? fn_port(f) : rd && rd->n_ports ? &rd->ports[0] : NULL;
	for (int i = 0; i < RC_N; i++)
		cells[i][0] = '\0';
	if (vf)
		snprintf(cells[RC_DEVICE], ROW_CELL_MAX, "vf%u %s", vf->index, vf->fn.bdf);
	else
		put(cells[RC_DEVICE], f ? f->bdf : NULL, "(no PCI function)");
	put(cells[RC_DRIVER], f ? f->driver : NULL, f ? "(none)" : "-");
	put(cells[RC_NETDEV], f && f->n_netdevs ? f->netdevs[0].name : NULL, "-");
	put(cells[RC_IBDEV], rd ? rd->name : NULL, "-");
	put(cells[RC_STATE], p ? p->state_name : NULL, p ? "?" : "-");
	if (p) {
		put(cells[RC_PHYS], p->phys_state_name, "?");
		put(cells[RC_RATE], p->rate, "?");
		put(cells[RC_LINK], p->link_layer, "?");
	}
	put(cells[RC_FW], rd ? rd->fw_ver : NULL, f ? "-" : "");
	if (pf && !vf) {
		if (pf->sriov) {
			char num[24] = "?", total[24] = "?";
			if (pf->numvfs.known)
				snprintf(num, sizeof(num), "%lld", (long long)pf->numvfs.v);
			if (pf->totalvfs.known)
				snprintf(total, sizeof(total), "%lld", (long long)pf->totalvfs.v);
			snprintf(cells[RC_VFS], ROW_CELL_MAX, "%s/%s", num, total);
		} else
			put(cells[RC_VFS], "-", "-");
	}
	if (vf) {
		put_guid(cells[RC_NODE_GUID], vf->node_guid);
		put_guid(cells[RC_PORT_GUID], vf->port_guid);
		if (vf->pod)
			pods_label(vf->pod, cells[RC_POD], ROW_CELL_MAX);
		else
			put(cells[RC_POD], "-", "-");
	} else {
		if (rd)
			put_guid(cells[RC_NODE_GUID], rd->node_guid);
		else
			put(cells[RC_NODE_GUID], "-", "-");
		if (p)
			put_guid(cells[RC_PORT_GUID], p->port_guid);
		else
			put(cells[RC_PORT_GUID], "-", "-");
		put(cells[RC_POD], "-", "-");
	}
}

void row_port_cells(const struct port *p, char cells[RC_N][ROW_CELL_MAX])
{
	for (int i = 0; i < RC_N; i++)
		cells[i][0] = '\0';
	snprintf(cells[RC_DEVICE], ROW_CELL_MAX, "port %u", p->num);
	put(cells[RC_STATE], p->state_name, "?");
	put(cells[RC_PHYS], p->phys_state_name, "?");
	put(cells[RC_RATE], p->rate, "?");
	put(cells[RC_LINK], p->link_layer, "?");
	put_guid(cells[RC_PORT_GUID], p->port_guid);
}
