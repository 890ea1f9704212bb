// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of sampling formats (spec sections 3.5.1 and 3.5.2).
 * Formats are modules that register at load and unregister at unload.
 * A context holds a reference on its format's module from
 * PFM_CREATE_CONTEXT to its end, so a format in use cannot be unloaded
 * (rmmod says "in use"), and a format being unloaded is never handed to
 * a new context: try_module_get() fails once its unloading has begun.
 */
#include <linux/ctype.h>
#include <linux/kmod.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "pfm.h"

static DEFINE_MUTEX(pfm_fmt_lock);
static LIST_HEAD(pfm_fmt_list);		/* in registration order */

static bool pfm_fmt_complete(const struct pfm_smpl_fmt *fmt)
{
	static const u8 zero[16];

	return fmt->name && fmt->name[0] &&
	       strnlen(fmt->name, PFM_FMT_NAME_LEN) < PFM_FMT_NAME_LEN &&
	       memcmp(fmt->uuid, zero, sizeof(zero)) &&
	       !(fmt->flags & ~PFM_FMTFL_NOSET) &&
	       fmt->arg_size && fmt->arg_size <= PFM_FMT_ARG_MAX &&
	       fmt->parse_arg && fmt->min_size && fmt->init && fmt->record &&
	       fmt->restart;
}

int pfm_register_buffer_fmt(struct pfm_smpl_fmt *fmt)
{
	struct pfm_smpl_fmt *pos;
	int ret = 0;

	if (!fmt || !pfm_fmt_complete(fmt))
		return -EINVAL;
	mutex_lock(&pfm_fmt_lock);
	list_for_each_entry(pos, &pfm_fmt_list, list) {
		if (!strcmp(pos->name, fmt->name) ||
		    !memcmp(pos->uuid, fmt->uuid, sizeof(pos->uuid))) {
			ret = -EBUSY;
			goto out_unlock;
		}
	}
	list_add_tail(&fmt->list, &pfm_fmt_list);
	pr_info("perfmon: sampling format %s registered\n", fmt->name);
out_unlock:
	mutex_unlock(&pfm_fmt_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(pfm_register_buffer_fmt);

int pfm_unregister_buffer_fmt(const u8 *uuid)
{
	struct pfm_smpl_fmt *pos;
	int ret = -EINVAL;

	mutex_lock(&pfm_fmt_lock);
	list_for_each_entry(pos, &pfm_fmt_list, list) {
		if (!memcmp(pos->uuid, uuid, sizeof(pos->uuid))) {
			list_del(&pos->list);
			pr_info("perfmon: sampling format %s unregistered\n",
				pos->name);
			ret = 0;
			break;
		}
	}
	mutex_unlock(&pfm_fmt_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(pfm_unregister_buffer_fmt);

/* The format of that name (NULL: any) and UUID (all zero: any), its
 * module held; NULL when none is registered or it is being unloaded. */
static const struct pfm_smpl_fmt *pfm_fmt_find_get(const char *name,
						   const u8 *uuid)
{
	static const u8 zero[16];
	bool any_uuid = !memcmp(uuid, zero, sizeof(zero));
	const struct pfm_smpl_fmt *found = NULL;
	struct pfm_smpl_fmt *pos;

	mutex_lock(&pfm_fmt_lock);
	list_for_each_entry(pos, &pfm_fmt_list, list) {
		if (name && strcmp(pos->name, name))
			continue;
		if (!any_uuid && memcmp(pos->uuid, uuid, sizeof(pos->uuid)))
			continue;
		if (try_module_get(pos->owner))
			found = pos;
		break;
	}
	mutex_unlock(&pfm_fmt_lock);
	return found;
}

/* A name that may go into a module alias: letters, digits, - and _ */
static bool pfm_fmt_name_ok(const char *name)
{
	const char *p;

	for (p = name; *p; p++)
		if (!isalnum(*p) && *p != '-' && *p != '_')
			return false;
	return p != name;
}

const struct pfm_smpl_fmt *pfm_fmt_get(const char *name, const u8 *uuid)
{
	const struct pfm_smpl_fmt *fmt = pfm_fmt_find_get(name, uuid);

	/* a format installed but not loaded: its alias perfmon-fmt-NAME */
	if (!fmt && name && pfm_fmt_name_ok(name) &&
	    !request_module("perfmon-fmt-%s", name))
		fmt = pfm_fmt_find_get(name, uuid);
	return fmt;
}

void pfm_fmt_put(const struct pfm_smpl_fmt *fmt)
{
	module_put(fmt->owner);
}

int pfm_fmt_info(struct pfarg_fmtinfo *fi)
{
	const struct pfm_smpl_fmt *pos;
	u32 i = 0;
	int ret = -EINVAL;

	if (fi->fmt_retflags || fi->fmt_reserved1 ||
	    memchr_inv(fi->fmt_reserved2, 0, sizeof(fi->fmt_reserved2))) {
		fi->fmt_retflags = PFM_REG_RETFL_EINVAL;
		return -EINVAL;
	}
	memset(fi->fmt_name, 0, sizeof(fi->fmt_name));
	memset(fi->fmt_uuid, 0, sizeof(fi->fmt_uuid));
	fi->fmt_flags = 0;
	fi->fmt_arg_size = 0;
	mutex_lock(&pfm_fmt_lock);
	list_for_each_entry(pos, &pfm_fmt_list, list) {
		if (i++ != fi->fmt_index)
			continue;
		strscpy((char *)fi->fmt_name, pos->name, sizeof(fi->fmt_name));
		memcpy(fi->fmt_uuid, pos->uuid, sizeof(fi->fmt_uuid));
		fi->fmt_flags = pos->flags;
		fi->fmt_arg_size = pos->arg_size;
		ret = 0;
		break;
	}
	mutex_unlock(&pfm_fmt_lock);
	if (ret)
		fi->fmt_retflags = PFM_REG_RETFL_NOTAVAIL;
	return ret;
}

ssize_t pfm_fmt_describe(char *buf)
{
	const struct pfm_smpl_fmt *pos;
	ssize_t n = 0;

	mutex_lock(&pfm_fmt_lock);
	list_for_each_entry(pos, &pfm_fmt_list, list)
		n += sysfs_emit_at(buf, n, "%s %pUb%s\n", pos->name, pos->uuid,
				   pos->flags & PFM_FMTFL_NOSET ? " noset" : "");
	mutex_unlock(&pfm_fmt_lock);
	return n;
}
