/* SPDX-License-Identifier: MIT */
#pragma once

int cmd_mkfixture(int argc, char **argv);
