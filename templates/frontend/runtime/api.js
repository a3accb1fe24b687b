/** The HTTP client: same-origin JSON requests; a 401 anywhere hands control to the login page. */

let unauthorizedHandler = () => {};

/** Registers what happens when the session is gone (the app root sends the user to /login). */
export function onUnauthorized(handler) {
  unauthorizedHandler = handler;
}

export class ApiError extends Error {
  constructor(status, detail, body) {
    super(detail);
    this.status = status;
    this.detail = detail;
    this.body = body;
  }
}

/** FastAPI's `detail` is a string for our own errors and a list of problems for bad input (422). */
export function describeDetail(detail) {
  if (Array.isArray(detail)) {
    return detail
      .map((item) => {
        const where = Array.isArray(item.loc) ? item.loc.filter((p) => p !== "body").join(".") : "";
        return where ? `${where}: ${item.msg}` : String(item.msg ?? item);
      })
      .join("; ");
  }
  if (detail && typeof detail === "object") return JSON.stringify(detail);
  return detail ? String(detail) : "";
}

export async function request(method, url, body, { quiet401 = false } = {}) {
  const init = { method, credentials: "same-origin", headers: { Accept: "application/json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch (err) {
    throw new ApiError(0, "The server could not be reached. Please try again.", null);
  }
  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch (err) {
      data = null; // a non-JSON error page: fall back to the status line below
    }
  }
  if (response.status === 401 && !quiet401) unauthorizedHandler();
  if (!response.ok) {
    const detail = describeDetail(data && data.detail) || `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, detail, data);
  }
  return data;
}

export const api = {
  get: (url) => request("GET", url),
  post: (url, body) => request("POST", url, body ?? {}),
  patch: (url, body) => request("PATCH", url, body ?? {}),
  del: (url) => request("DELETE", url),
};

/** `url?k=v&…`, skipping empty values so the backend applies its defaults. */
export function withQuery(url, params) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") query.set(key, String(value));
  }
  const text = query.toString();
  return text ? `${url}?${text}` : url;
}
