-- Sluice's routing action for HAProxy (DESIGN §5/§7, as Ray Serve 2.56's HAProxy data plane does
-- it): ask the LLMRouter's POST /internal/route for a replica, then pin the request to that
-- replica's server. On any failure nothing is pinned and txn.sluice_reason says why; the
-- generated haproxy.cfg answers 503 with that reason before any use_backend (fail closed).
-- Settings come from the environment the generated haproxy.cfg sets (setenv in its global
-- section): SLUICE_ROUTER_HOST, SLUICE_ROUTER_PORT, SLUICE_MORE_ROUTERS (optional),
-- SLUICE_ROUTE_TIMEOUT_S, SLUICE_ROUTER_TOKEN (optional), SLUICE_SESSION_HEADER, SLUICE_BACKEND and
-- SLUICE_FORWARD_BODY_LIMIT (0: the router gets no body, but for an application whose routing
-- reads the prompt the part HAProxy buffers; else up to that many bytes of it, with
-- X-Body-Truncated: <sent>/<total> when cut, as the ingress does). The body's "model" goes to
-- the router as X-Sluice-Model whatever SLUICE_FORWARD_BODY_LIMIT says, as the ingress sends it.
-- SLUICE_INGRESS_HOST and SLUICE_INGRESS_PORT (optional): the node's own ingress, where a request
-- goes whose model the action could not read (beyond the part of the body HAProxy buffers) for
-- an application with several deployments, or whose prompt is longer than that part for an
-- application routed by the prompt (with body forwarding off); the ingress reads the whole body.

-- The routers to ask, in order: SLUICE_ROUTER_HOST:SLUICE_ROUTER_PORT, then SLUICE_MORE_ROUTERS
-- ("host:port,host:port"). Every control node serves one, which reaches the router singleton
-- wherever it runs; a router that refuses the connection is passed over for the next, and the
-- one that last took a connection is asked first.
local routers = {{host = os.getenv("SLUICE_ROUTER_HOST") or "127.0.0.1",
  port = tonumber(os.getenv("SLUICE_ROUTER_PORT") or "8500")}}
for host, port in (os.getenv("SLUICE_MORE_ROUTERS") or ""):gmatch("([^,]+):(%d+)") do
  routers[#routers + 1] = {host = host, port = tonumber(port)}
end
local preferred = 1
local timeout_s = tonumber(os.getenv("SLUICE_ROUTE_TIMEOUT_S") or "5")
local token = os.getenv("SLUICE_ROUTER_TOKEN") or ""
local session_header = os.getenv("SLUICE_SESSION_HEADER") or "x-session-id"
local backend_name = os.getenv("SLUICE_BACKEND") or "sluice_replicas"
local forward_limit = tonumber(os.getenv("SLUICE_FORWARD_BODY_LIMIT") or "0") or 0
local ingress_host = os.getenv("SLUICE_INGRESS_HOST")
local ingress_port = tonumber(os.getenv("SLUICE_INGRESS_PORT") or "")

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

-- The body for the router (buffered by option http-buffer-request) and, when it is not all of
-- the client's body, the X-Body-Truncated value. With body forwarding off, an application whose
-- routing reads the prompt (txn.sluice_prompt_routed) still sends what HAProxy holds of it.
local function forwarded_body(txn, body)
  local limit = forward_limit
  if limit <= 0 then
    if not txn:get_var("txn.sluice_prompt_routed") then
      return "", nil
    end
    limit = #body
  end
  local total = tonumber(txn.f:req_body_size()) or #body
  if #body > limit then
    body = body:sub(1, limit)
  end
  if #body < total then
    return body, #body .. "/" .. total
  end
  return body, nil
end

-- The body's top-level "model", read as the ingress reads it (ModelField): the router picks
-- among the deployments serving it, with body forwarding off too. Lenient: a body that is not a
-- JSON object, a "model" that is not a string or comes twice, has none (the router then answers
-- as for no model, the replica the precise 400). A body cut at HAProxy's buffer gives the model
-- seen before the cut.
local max_model_chars = 256
local escapes = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n",
  r = "\r", t = "\t" }

-- The JSON string whose opening quote is at i: its text and the index after it, or nil.
local function json_string(body, i)
  local out, pos = {}, i + 1
  while true do
    local at = body:find('["\\]', pos)
    if at == nil then
      return nil
    end
    out[#out + 1] = body:sub(pos, at - 1)
    if body:sub(at, at) == '"' then
      return table.concat(out), at + 1
    end
    local c = body:sub(at + 1, at + 1)
    local hex = body:sub(at + 2, at + 5)
    if c == "u" and hex:match("^%x%x%x%x$") then
      out[#out + 1] = utf8.char(tonumber(hex, 16))
      pos = at + 6
    elseif escapes[c] then
      out[#out + 1] = escapes[c]
      pos = at + 2
    else
      return nil
    end
  end
end

local function skip_space(body, i)
  return body:find("[^ \t\r\n]", i)
end

-- The index after the JSON value that starts at i, or nil (cut or malformed).
local function skip_value(body, i)
  local c = body:sub(i, i)
  if c == '"' then
    local _, after = json_string(body, i)
    return after
  end
  if c ~= "{" and c ~= "[" then
    return body:find("[,}%]%s]", i)  -- a number or a literal
  end
  local depth, pos = 0, i
  while true do
    local at = body:find('[%[%]{}"]', pos)
    if at == nil then
      return nil
    end
    local ch = body:sub(at, at)
    if ch == '"' then
      local _, after = json_string(body, at)
      if after == nil then
        return nil
      end
      pos = after
    else
      depth = depth + ((ch == "{" or ch == "[") and 1 or -1)
      pos = at + 1
      if depth == 0 then
        return pos
      end
    end
  end
end

local function body_model(body)
  local i = skip_space(body, 1)
  if i == nil or body:sub(i, i) ~= "{" then
    return nil
  end
  local model, seen = nil, false
  i = i + 1
  while true do
    i = skip_space(body, i)
    if i ~= nil and body:sub(i, i) == "," then
      i = skip_space(body, i + 1)
    end
    if i == nil or body:sub(i, i) == "}" then
      return model
    end
    if body:sub(i, i) ~= '"' then
      return nil
    end
    local key, after = json_string(body, i)
    i = after and skip_space(body, after)
    if i == nil then
      return model
    end
    if body:sub(i, i) ~= ":" then
      return nil
    end
    i = skip_space(body, i + 1)
    if i == nil then
      return model
    end
    if key == "model" then
      if seen or body:sub(i, i) ~= '"' then
        return nil
      end
      seen = true
      model, i = json_string(body, i)
      if model == nil then
        return nil
      end
      model = model:sub(1, max_model_chars + 1)
    else
      i = skip_value(body, i)
      if i == nil then
        return model
      end
    end
  end
end

-- One POST /internal/route: the chosen replica id, or nil and the reason.
-- A connection to the first router that takes one (see routers), or nil. Only a refused
-- connection moves on: a router that took the request may have routed it.
local function connect_router()
  for i = 0, #routers - 1 do
    local index = (preferred - 1 + i) % #routers + 1
    local sock = core.tcp()
    sock:settimeout(timeout_s)
    if sock:connect(routers[index].host, routers[index].port) then
      preferred = index
      return sock, routers[index]
    end
    sock:close()
  end
  return nil
end

local function ask_router(txn, body, cut, model, excluded)
  local sock, router = connect_router()
  if sock == nil then
    return nil, "router_unreachable"
  end
  local request = "POST /internal/route HTTP/1.0\r\nHost: " .. router.host .. ":" .. router.port
    .. "\r\nConnection: close\r\nContent-Length: " .. #body .. "\r\n"
  if #body > 0 then
    request = request .. "Content-Type: application/json\r\n"
  end
  if cut then
    request = request .. "X-Body-Truncated: " .. cut .. "\r\n"
  end
  if #excluded > 0 then
    request = request .. "X-Sluice-Exclude: " .. table.concat(excluded, ",") .. "\r\n"
  end
  if token ~= "" then
    request = request .. "Authorization: Bearer " .. token .. "\r\n"
  end
  -- The application whose route prefix took the path: the router picks among its deployments.
  local app = txn:get_var("txn.sluice_app")
  if app then
    request = request .. "X-Sluice-App: " .. app .. "\r\n"
  end
  if model then
    request = request .. "X-Sluice-Model: " .. model .. "\r\n"
  end
  -- The request's id, as the config set it (the client's when safe, else a new UUID).
  local request_id = txn:get_var("txn.sluice_request_id")
  if request_id and request_id:match("^[%w%._:%-]+$") then
    request = request .. "X-Request-Id: " .. request_id .. "\r\n"
  end
  local session = txn.http:req_get_headers()[session_header]
  session = session and safe(session[0])
  if session then
    request = request .. session_header .. ": " .. session .. "\r\n"
  end
  if not sock:send(request .. "\r\n" .. body) then
    sock:close()
    return nil, "router_unreachable"
  end
  local status_line = sock:receive("*l")
  if status_line == nil then
    sock:close()
    return nil, "router_unreachable"
  end
  local code = tonumber(status_line:match("^HTTP/%d%.%d (%d%d%d)"))
  repeat  -- the head, up to its empty line
    local line = sock:receive("*l")
  until line == nil or line == ""
  local answer = sock:receive("*a") or ""
  sock:close()
  if code ~= 200 then
    -- The router's own words (bounded, printable only) go to the client as x-sluice-detail.
    local detail = answer:match('"detail"%s*:%s*"([^"]*)"') or ("HTTP " .. tostring(code))
    txn:set_var("txn.sluice_detail", (detail:gsub("[^%w%p ]", "_")):sub(1, 200))
    -- The client's own mistake, not a routing failure: the config answers it as the ingress
    -- does (404 model_not_found, 400 naming model), still before any backend.
    local reason = code == 503 and answer:match('"reason"%s*:%s*"([%w_]+)"')
    if reason == "model_not_found" or reason == "model_required" then
      return nil, reason
    end
    return nil, "router_non_200"
  end
  local id = answer:match('"replica_id"%s*:%s*"([^"\\,]+)"')
  if id == nil or not safe(id) then
    return nil, "unparseable_replica_id"
  end
  -- The replica's endpoint (an IP address only: set-dst takes no name), for an old worker. (It
  -- relays an external engine's answer: slower than the engine's own port, but the answer's
  -- shape stays Ray's host, port and replica_id.)
  local host = answer:match('"host"%s*:%s*"([%d%.:a-fA-F]+)"')
  local port = tonumber(answer:match('"port"%s*:%s*(%d+)'))
  return id, nil, host, port
end

-- Asks the router, then pins the request to the chosen replica's server. A replica this HAProxy
-- does not know (yet: the router may hear of a new replica a moment before this HAProxy's
-- reload) or sees down is excluded and the router asked again, up to `attempts` times in all;
-- never is another server used in its place. (An old worker, stopping after a reload, sends a
-- replica it does not know to the address the router gave instead: its config is the stale
-- one.) When the router then has nobody else, the answer
-- gives the exclusion's reason (unknown_replica_id, replica_unreachable), the real cause.
local attempts = 3

-- Whether this worker is an old one, stopping after a reload (HAProxy gives the boolean as a
-- number: 0 is true in Lua).
local function stopping(txn)
  local value = txn.f:stopping()
  return value == true or value == 1
end

-- To the node's own ingress, which reads the request whole and strictly, and routes it itself.
local function to_ingress(txn)
  txn:set_var("txn.sluice_dst_host", ingress_host)
  txn:set_var("txn.sluice_dst_port", ingress_port)
  txn:set_var("txn.sluice_via_ingress", true)
end

local function route(txn)
  if ingress_port and txn:get_var("txn.sluice_unsized") then
    -- No Content-Length (chunked, or HTTP/2 without one): a replica's endpoint misreads obs-text
    -- in a trailer, which HAProxy passes on; the ingress refuses it (HaproxyRefusals.unsized).
    return to_ingress(txn)
  end
  -- What HAProxy buffered of the body, copied into Lua once.
  local buffered = txn.f:req_body() or ""
  local body, cut = forwarded_body(txn, buffered)
  -- The body's model, as the ingress reads it, whatever the number of deployments: the router
  -- picks by it where there are several, and answers a model none serves (404 model_not_found)
  -- rather than a replica (an engine's own 404 is in its own shape). Printable ASCII only (what
  -- a header carries unchanged); another is not sent.
  local model = body_model(buffered)
  if model and not model:match("^[%w%p ]+$") then
    model = nil
  end
  if model == nil and ingress_port and txn:get_var("txn.sluice_several_models") then
    -- No model in the part of the body HAProxy holds (it may lie beyond), where the router
    -- needs one: the node's own ingress reads the whole body, and answers a missing model.
    return to_ingress(txn)
  end
  if cut and forward_limit <= 0 and ingress_port and txn:get_var("txn.sluice_prompt_routed") then
    -- A prompt longer than what HAProxy holds, where the router routes by the prompt: the node's
    -- own ingress reads the whole body and sends the router up to its forward-body-limit.
    return to_ingress(txn)
  end
  local excluded = {}
  local reason = "router_unreachable"
  for _ = 1, attempts do
    local id, failure, host, port = ask_router(txn, body, cut, model, excluded)
    if id == nil then
      if #excluded > 0 and failure == "router_non_200" then
        return fail(txn, reason)
      end
      return fail(txn, failure)
    end
    local name = server_name(id)
    local backend = core.backends[backend_name]
    local server = backend and backend.servers[name]
    if server == nil and host and port and stopping(txn) then
      -- An old worker after a reload, on a client's kept-alive connection: its config predates
      -- the replica (a rolling update replaced them all, say). The router's pick is current:
      -- the request goes to that replica's address, as the new worker would send it.
      txn:set_var("txn.sluice_dst_host", host)
      txn:set_var("txn.sluice_dst_port", port)
      txn:set_var("txn.sluice_replica", id)
      return
    end
    if server == nil then
      reason = "unknown_replica_id"
    elseif (server:get_stats()["status"] or ""):sub(1, 2) ~= "UP" then
      reason = "replica_unreachable"
    else
      txn:set_var("txn.sluice_server", name)
      txn:set_var("txn.sluice_replica", id)
      if txn:get_var("txn.sluice_via_endpoint") and host and port
          and server:get_addr() ~= host .. ":" .. port then
        -- An external engine's server, and a body that may be over the limit or is in a content
        -- coding: to the replica's endpoint, which refuses it (413, 415) as the ingress does,
        -- where the engine would take it whatever its size or coding.
        txn:set_var("txn.sluice_dst_host", host)
        txn:set_var("txn.sluice_dst_port", port)
      end
      return
    end
    excluded[#excluded + 1] = id
  end
  return fail(txn, reason)
end

core.register_action("sluice_route", { "http-req" }, route, 0)
