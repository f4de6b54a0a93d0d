-- Sluice's routing action for HAProxy (DESIGN §5/§7, as Ray Serve 2.56's HAProxy data plane does
-- it): ask the LLMRouter's POST /internal/route for a replica, then pin the request to that
-- replica's server. On any failure nothing is pinned and txn.sluice_reason says why; the
-- generated haproxy.cfg answers 503 with that reason before any use_backend (fail closed).
-- Settings come from the environment the generated haproxy.cfg sets (setenv in its global
-- section): SLUICE_ROUTER_HOST, SLUICE_ROUTER_PORT, SLUICE_ROUTE_TIMEOUT_S,
-- SLUICE_ROUTER_TOKEN (optional), SLUICE_SESSION_HEADER, SLUICE_BACKEND.

local router_host = os.getenv("SLUICE_ROUTER_HOST") or "127.0.0.1"
local router_port = tonumber(os.getenv("SLUICE_ROUTER_PORT") or "8500")
local timeout_s = tonumber(os.getenv("SLUICE_ROUTE_TIMEOUT_S") or "5")
local token = os.getenv("SLUICE_ROUTER_TOKEN") or ""
local session_header = os.getenv("SLUICE_SESSION_HEADER") or "x-session-id"
local backend_name = os.getenv("SLUICE_BACKEND") or "sluice_replicas"

-- The server name of a replica id: '#' -> '-', '/' -> '.', anything else outside
-- [A-Za-z0-9._-] -> '_' (the same rule as the Java renderer).
local function server_name(id)
  local name = id:gsub("#", "-"):gsub("/", ".")
  return (name:gsub("[^%w%._%-]", "_"))
end

local function fail(txn, reason)
  txn:set_var("txn.sluice_reason", reason)
end

-- A header value safe to put in the request to the router: no CR, LF or NUL.
local function safe(value)
  if value == nil or value:find("[%c]") then
    return nil
  end
  return value
end

local function route(txn)
  local sock = core.tcp()
  sock:settimeout(timeout_s)
  if not sock:connect(router_host, router_port) then
    sock:close()
    return fail(txn, "router_unreachable")
  end
  local request = "POST /internal/route HTTP/1.0\r\nHost: " .. router_host .. ":" .. router_port
    .. "\r\nConnection: close\r\nContent-Length: 0\r\n"
  if token ~= "" then
    request = request .. "Authorization: Bearer " .. token .. "\r\n"
  end
  local session = txn.http:req_get_headers()[session_header]
  session = session and safe(session[0])
  if session then
    request = request .. session_header .. ": " .. session .. "\r\n"
  end
  if not sock:send(request .. "\r\n") then
    sock:close()
    return fail(txn, "router_unreachable")
  end
  local status_line = sock:receive("*l")
  if status_line == nil then
    sock:close()
    return fail(txn, "router_unreachable")
  end
  local code = tonumber(status_line:match("^HTTP/%d%.%d (%d%d%d)"))
  repeat  -- the head, up to its empty line
    local line = sock:receive("*l")
  until line == nil or line == ""
  local body = sock:receive("*a") or ""
  sock:close()
  if code ~= 200 then
    return fail(txn, "router_non_200")
  end
  local id = body:match('"replica_id"%s*:%s*"([^"\\]+)"')
  if id == nil then
    return fail(txn, "unparseable_replica_id")
  end
  local name = server_name(id)
  local backend = core.backends[backend_name]
  if backend == nil or backend.servers[name] == nil then
    return fail(txn, "unknown_replica_id")
  end
  local status = backend.servers[name]:get_stats()["status"] or ""
  if status:sub(1, 2) ~= "UP" then
    -- Never another server in its place: the router chose this one.
    return fail(txn, "replica_unreachable")
  end
  txn:set_var("txn.sluice_server", name)
  txn:set_var("txn.sluice_replica", id)
end

core.register_action("sluice_route", { "http-req" }, route, 0)
