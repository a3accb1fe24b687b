/** Roles: what a signed-in user's role lets them see and do. An item (a page, a nav entry, an
 * action) without `roles` is for everyone; one with roles is shown only to those roles. The API
 * enforces the same rule (403), so hiding is a courtesy, never the lock. */

export function allowed(item, user) {
  return !item || !item.roles || item.roles.length === 0 || Boolean(user && item.roles.includes(user.role));
}

export function rolesText(roles) {
  return roles.join(" or ");
}
