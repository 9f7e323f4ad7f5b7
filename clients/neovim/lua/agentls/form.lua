-- agentls.form: an MCP server's form (an elicitation approval's fields,
-- docs/protocol.md section 4), asked field by field once the user picked Submit:
-- vim.ui.select for a choice or yes/no, vim.ui.input for text and numbers
-- (a multi-select is typed as values or numbers separated by commas),
-- checked against the field. Escape at any step declines: done(nil).
-- Every string of the server's is shown through plain (agentls.prompt's):
-- a newline in a field's title would fake a line of the picker, an escape
-- sequence draw over it, a bidi override reorder it.
local M = {}

local plain = require("agentls.prompt").plain

local function given(v)
  return v ~= nil and v ~= vim.NIL
end

--- label names a field as its prompt shows it.
function M.label(f)
  if given(f.title) and f.title ~= f.name then
    return plain(f.title) .. " (" .. plain(f.name) .. ")"
  end
  return plain(f.name)
end

--- check reads text typed for field f: it returns value (nil: left out),
--- or nil and why the text does not fit.
function M.check(f, text)
  if text == "" then
    if f.required and not given(f.default) then
      return nil, "required"
    end
    return nil
  end
  if f.type == "number" or f.type == "integer" then
    local n = tonumber(text)
    if not n then
      return nil, "a number"
    end
    if f.type == "integer" and n ~= math.floor(n) then
      return nil, "a whole number"
    end
    if (given(f.minimum) and n < f.minimum) or (given(f.maximum) and n > f.maximum) then
      return nil, "between " .. tostring(given(f.minimum) and f.minimum or "…") .. " and " .. tostring(given(f.maximum) and f.maximum or "…")
    end
    return n
  end
  if f.type == "array" then
    local out = {}
    for part in text:gmatch("[^,]+") do
      local p = vim.trim(part)
      local n = tonumber(p)
      local c = n and f.choices[n] or nil
      local v = c and c.value or p
      local ok = false
      for _, ch in ipairs(f.choices) do
        ok = ok or ch.value == v
      end
      if not ok then
        return nil, "values among the choices"
      end
      table.insert(out, v)
    end
    return out
  end
  local len = vim.fn.strchars(text)
  if (given(f.minLength) and len < f.minLength) or (given(f.maxLength) and len > f.maxLength) then
    return nil, "a length within the limits"
  end
  return text
end

local function choice_items(f)
  if f.type == "boolean" then
    return { { label = "Yes", value = true }, { label = "No", value = false } }
  end
  local items = {}
  for _, c in ipairs(f.choices) do
    table.insert(items, { label = given(c.title) and (plain(c.title) .. " (" .. plain(c.value) .. ")") or plain(c.value), value = c.value })
  end
  return items
end

--- fill asks each field of approval a's form and calls done(content), or
--- done(nil) when the user backed out.
function M.fill(a, done)
  local fields = (type(a.elicitation) == "table" and type(a.elicitation.fields) == "table") and a.elicitation.fields or {}
  local server = given(a.server) and plain(a.server) or "the MCP server"
  local content = vim.empty_dict()
  local i = 0
  local step
  step = function()
    i = i + 1
    local f = fields[i]
    if not f then
      done(content)
      return
    end
    local prompt = server .. " asks: " .. M.label(f)
    if given(f.description) then
      prompt = prompt .. " — " .. plain(f.description)
    end
    local choices = type(f.choices) == "table" and #f.choices > 0
    if f.type == "boolean" or (choices and f.type ~= "array") then
      local items = choice_items(f)
      if not f.required or given(f.default) then
        table.insert(items, { label = given(f.default) and ("(the default: " .. plain(vim.fn.json_encode(f.default)) .. ")") or "(leave out)", skip = true })
      end
      vim.ui.select(items, { prompt = prompt, kind = "agentls.form", format_item = function(it) return it.label end }, function(it)
        if not it then
          done(nil)
          return
        end
        if not it.skip then
          content[f.name] = it.value
        end
        step()
      end)
      return
    end
    if f.type == "array" then
      local names = {}
      for n, it in ipairs(choice_items(f)) do
        table.insert(names, n .. "=" .. it.label)
      end
      prompt = prompt .. " [" .. table.concat(names, " ") .. ", several with commas]"
    end
    local default = ""
    if given(f.default) then
      default = type(f.default) == "table" and table.concat(f.default, ",") or tostring(f.default)
    end
    vim.ui.input({ prompt = prompt .. ": ", default = default }, function(text)
      if text == nil then
        done(nil)
        return
      end
      local v, why = M.check(f, text)
      if why then
        vim.notify("agentls: " .. M.label(f) .. ": expected " .. why, vim.log.levels.WARN)
        i = i - 1
      elseif v ~= nil then
        content[f.name] = v
      end
      step()
    end)
  end
  step()
end

return M
