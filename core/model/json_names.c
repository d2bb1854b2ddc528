// SPDX-License-Identifier: MIT
/* Each table is iproute2's own (ip/ipaddress.c oper_states and
 * print_link_flags, lib/ll_types.c, rdma/link.c, rdma/dev.c). */
#include "json_names.h"
#include "names.h"

#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *const oper_states[] = {
	"UNKNOWN", "NOTPRESENT", "DOWN", "LOWERLAYERDOWN", "TESTING", "DORMANT", "UP",
};

const char *json_operstate_name(const char *sysfs, char *buf, unsigned int size)
{
	if (!sysfs)
		return NULL;
	for (size_t i = 0; i < N(oper_states); i++)
		if (!strcasecmp(sysfs, oper_states[i]))
			return oper_states[i];
	/* A word the table lacks: ip would print its number; keep the word. */
	size_t n = 0;
	for (; sysfs[n] && n + 1 < size; n++)
		buf[n] = (char)(sysfs[n] >= 'a' && sysfs[n] <= 'z' ? sysfs[n] - 32 : sysfs[n]);
	buf[n] = '\0';
	return buf;
}

static const struct {
	int type;
	const char *name;
} arphrd_names[] = {
	{1, "ether"}, {32, "infiniband"}, {768, "ipip"},   {772, "loopback"},
	{776, "sit"}, {778, "gre"},	  {65534, "none"}, {65535, "void"},
};

const char *json_link_type_name(long long arphrd, char *buf, unsigned int size)
{
	for (size_t i = 0; i < N(arphrd_names); i++)
		if (arphrd_names[i].type == arphrd)
			return arphrd_names[i].name;
	snprintf(buf, size, "[%lld]", arphrd);
	return buf;
}

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000
#define IFF_DORMANT  0x20000
#define IFF_ECHO     0x40000
#endif

static const struct {
	unsigned int bit;
	const char *name;
} flag_names[] = {
	{IFF_LOOPBACK, "LOOPBACK"},
	{IFF_BROADCAST, "BROADCAST"},
	{IFF_POINTOPOINT, "POINTOPOINT"},
	{IFF_MULTICAST, "MULTICAST"},
	{IFF_NOARP, "NOARP"},
	{IFF_ALLMULTI, "ALLMULTI"},
	{IFF_PROMISC, "PROMISC"},
	{IFF_MASTER, "MASTER"},
	{IFF_SLAVE, "SLAVE"},
	{IFF_DEBUG, "DEBUG"},
	{IFF_DYNAMIC, "DYNAMIC"},
	{IFF_AUTOMEDIA, "AUTOMEDIA"},
	{IFF_PORTSEL, "PORTSEL"},
	{IFF_NOTRAILERS, "NOTRAILERS"},
	{IFF_UP, "UP"},
	{IFF_LOWER_UP, "LOWER_UP"},
	{IFF_DORMANT, "DORMANT"},
	{IFF_ECHO, "ECHO"},
};

/* dev_get_flags(): RUNNING when the operstate is up or unknown, LOWER_UP
 * when the carrier is (any operstate but down/lowerlayerdown/notpresent),
 * DORMANT when dormant; only for a running (UP) device. */
static unsigned int sysfs_flags(unsigned int flags, const char *operstate)
{
	flags &= ~(unsigned int)(IFF_RUNNING | IFF_LOWER_UP | IFF_DORMANT);
	if (!(flags & IFF_UP) || !operstate)
		return flags;
	if (!strcasecmp(operstate, "up") || !strcasecmp(operstate, "unknown"))
		flags |= IFF_RUNNING;
	if (strcasecmp(operstate, "down") && strcasecmp(operstate, "lowerlayerdown") &&
	    strcasecmp(operstate, "notpresent"))
		flags |= IFF_LOWER_UP;
	if (!strcasecmp(operstate, "dormant"))
		flags |= IFF_DORMANT;
	return flags;
}

struct json_object *json_link_flags(unsigned int flags, bool from_sysfs, const char *operstate)
{
	struct json_object *a = json_object_new_array();
	if (from_sysfs)
		flags = sysfs_flags(flags, operstate);
	if (flags & IFF_UP && !(flags & IFF_RUNNING))
		json_object_array_add(a, json_object_new_string("NO-CARRIER"));
	flags &= ~(unsigned int)IFF_RUNNING;
	for (size_t i = 0; i < N(flag_names); i++)
		if (flags & flag_names[i].bit) {
			flags &= ~flag_names[i].bit;
			json_object_array_add(a, json_object_new_string(flag_names[i].name));
		}
	if (flags) {
		char hex[16];
		snprintf(hex, sizeof(hex), "%x", flags);
		json_object_array_add(a, json_object_new_string(hex));
	}
	return a;
}

static const char *const node_types[] = {
	"unknown", "ca", "switch", "router", "rnic", "usnic", "usnic_udp", "unspecified",
};

const char *json_port_state_name(long long state)
{
	const char *w = port_state_to_string(state);
	return w ? w : "UNKNOWN";
}

const char *json_port_phys_state_name(long long phys_state)
{
	const char *w = port_phys_state_to_string(phys_state);
	return w ? w : "UNKNOWN";
}

const char *json_node_type_name(long long node_type)
{
	return node_type >= 0 && (size_t)node_type < N(node_types) ? node_types[node_type]
								   : "unknown";
}
