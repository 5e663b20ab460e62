package mcp

// ToolsMatchCommands is run by the tests in package mcp_test, which have
// the CLI's real command tree (the cli package imports this one).
var ToolsMatchCommands = toolsMatchCommands
