/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The common header: include it LAST in every .c file of the project, after
 * all system and library headers, because it pulls in banned.h, whose macros
 * would otherwise break the system headers' own prototypes.
 */
#ifndef S2C_COMMON_COMMON_H
#define S2C_COMMON_COMMON_H

#include "config.h"
#include "macro.h"
#include "cleanup.h"
#include "error.h"
#include "banned.h"

#endif /* S2C_COMMON_COMMON_H */
