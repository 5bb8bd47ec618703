"""What PowerShell's cmdlets and aliases read and write, for ``pwshjudge``: data, no logic.

``CMDLETS`` maps a cmdlet (lower case) to ``(kind, positions, values, targets)``: ``kind``
says what it does with ``targets`` (the parameters naming what it writes: ``write``, ``remove``,
``copy``, ``move``, ``rename``, ``create``, ``extract``, ``cd``...), ``positions`` the parameters
filled by position, ``values`` every parameter that takes a value (any other is a switch). A
parameter may be shortened to any unambiguous prefix or given by an alias (``PARAM_ALIASES``).
``ALIASES`` maps PowerShell's aliases, and cmd.exe's built-ins, to cmdlets.
"""
from __future__ import annotations

COMMON_VALUES = ("erroraction", "warningaction", "informationaction", "errorvariable", "warningvariable",
                 "informationvariable", "outvariable", "outbuffer", "pipelinevariable", "progressaction",
                 "credential", "filter", "include", "exclude", "encoding", "stream")
PARAM_ALIASES = {"pspath": "literalpath", "lp": "literalpath", "ea": "erroraction", "wa": "warningaction",
                 "ev": "errorvariable", "ov": "outvariable", "ob": "outbuffer", "pv": "pipelinevariable",
                 "iv": "informationvariable", "infa": "informationaction", "type": "itemtype", "target": "value",
                 "fullname": "path", "args": "argumentlist", "rso": "redirectstandardoutput",
                 "rse": "redirectstandarderror", "wd": "workingdirectory", "dest": "destination"}

_PATHS = ("path", "literalpath")
CMDLETS = {
    "set-content": ("write", ("path", "value"), _PATHS + ("value", "delimiter"), _PATHS),
    "add-content": ("write", ("path", "value"), _PATHS + ("value", "delimiter"), _PATHS),
    "clear-content": ("write", ("path",), _PATHS, _PATHS),
    "out-file": ("write", ("filepath", "encoding"), ("filepath", "literalpath", "inputobject", "width"),
                 ("filepath", "literalpath")),
    "tee-object": ("write", ("filepath",), ("filepath", "literalpath", "inputobject", "variable"),
                   ("filepath", "literalpath")),
    "export-csv": ("write", ("path",), _PATHS + ("inputobject", "delimiter", "quotefields", "usequotes"), _PATHS),
    "export-clixml": ("write", ("path",), _PATHS + ("inputobject", "depth"), _PATHS),
    "start-transcript": ("write", ("path",), _PATHS + ("outputdirectory",), _PATHS + ("outputdirectory",)),
    "new-item": ("create", ("path",), ("path", "name", "itemtype", "value"), ("path",)),
    "remove-item": ("remove", ("path",), _PATHS, _PATHS),
    "copy-item": ("copy", ("path", "destination"), _PATHS + ("destination", "fromsession", "tosession"), _PATHS),
    "move-item": ("move", ("path", "destination"), _PATHS + ("destination",), _PATHS),
    "rename-item": ("rename", ("path", "newname"), _PATHS + ("newname",), _PATHS),
    "set-item": ("write", ("path", "value"), _PATHS + ("value",), _PATHS),
    "clear-item": ("write", ("path",), _PATHS, _PATHS),
    "set-itemproperty": ("write", ("path", "name", "value"), _PATHS + ("name", "value", "inputobject"), _PATHS),
    "clear-itemproperty": ("write", ("path", "name"), _PATHS + ("name",), _PATHS),
    "new-itemproperty": ("write", ("path", "name", "value"), _PATHS + ("name", "value", "propertytype"), _PATHS),
    "remove-itemproperty": ("write", ("path", "name"), _PATHS + ("name",), _PATHS),
    "set-acl": ("write", ("path", "aclobject"), _PATHS + ("aclobject", "inputobject"), _PATHS),
    "expand-archive": ("extract", ("path", "destinationpath"), _PATHS + ("destinationpath",), ("destinationpath",)),
    "compress-archive": ("write", ("path", "destinationpath"), _PATHS + ("destinationpath", "compressionlevel"),
                         ("destinationpath",)),
    "invoke-webrequest": ("write", ("uri",), ("uri", "outfile", "method", "body", "headers", "contenttype",
                                              "infile", "useragent", "websession", "sessionvariable", "timeoutsec",
                                              "maximumredirection", "proxy", "form", "token"), ("outfile",)),
    "set-location": ("cd", ("path",), _PATHS + ("stackname",), _PATHS),
    "push-location": ("cd", ("path",), _PATHS + ("stackname",), _PATHS),
    "pop-location": ("popd", (), ("stackname",), ()),
    "invoke-expression": ("eval", ("command",), ("command",), ("command",)),
    "start-process": ("start", ("filepath", "argumentlist"), ("filepath", "argumentlist", "workingdirectory",
                                                             "redirectstandardoutput", "redirectstandarderror",
                                                             "redirectstandardinput", "verb", "windowstyle",
                                                             "environment"),
                      ("redirectstandardoutput", "redirectstandarderror")),
    "get-childitem": ("list", ("path", "filter"), _PATHS + ("depth", "attributes"), _PATHS),
    "get-item": ("list", ("path",), _PATHS, _PATHS),
    "resolve-path": ("list", ("path",), _PATHS + ("relativebasepath",), _PATHS),
    "join-path": ("join", ("path", "childpath"), ("path", "childpath", "additionalchildpath"), ("path", "childpath")),
    "new-object": ("object", ("typename", "argumentlist"), ("typename", "argumentlist", "property", "comobject"),
                   ("argumentlist",)),
    "new-temporaryfile": ("temp", (), (), ()),
    "write-output": ("echo", ("inputobject",), ("inputobject",), ()),
    "where-object": ("pass", (), ("property", "value", "filterscript"), ()),
    "sort-object": ("pass", ("property",), ("property", "top", "bottom", "culture"), ()),
    "select-object": ("pass", ("property",), ("property", "first", "last", "skip", "index", "expandproperty",
                                             "excludeproperty", "skiplast"), ()),
}
CMDLETS["invoke-restmethod"] = CMDLETS["invoke-webrequest"]
CMDLETS["robocopy"] = ("robocopy", ("path", "destination"), (), ())  # robocopy SRC DST [files]: DST gets content
CMDLETS["xcopy"] = CMDLETS["robocopy"]

# Cmdlets that only read, print or compute: allowed whatever their arguments say.
READERS = frozenset((
    "get-content", "select-string", "test-path", "split-path", "get-location", "write-host", "write-verbose",
    "write-debug", "write-warning", "write-error", "write-information", "write-progress", "format-table",
    "format-list", "format-wide", "format-custom", "format-hex", "out-string", "out-host", "out-null", "out-default",
    "foreach-object", "measure-object", "group-object", "compare-object", "convertto-json", "convertfrom-json",
    "convertto-csv", "convertfrom-csv", "convertto-xml", "convertfrom-stringdata", "get-filehash", "get-command",
    "get-help", "get-date", "get-process", "get-variable", "get-module", "import-csv", "import-clixml", "get-acl",
    "get-psdrive", "start-sleep", "test-json", "get-member", "select-xml", "get-unique", "get-history",
    "clear-host", "get-alias", "get-random", "measure-command", "get-itemproperty", "get-itempropertyvalue",
    "get-service", "get-culture", "get-host", "get-uptime", "get-error", "get-job", "receive-job", "wait-job",
    "get-clipboard", "set-clipboard", "get-childitem", "set-variable", "new-variable", "clear-variable",
    "remove-variable", "get-executionpolicy", "get-psreadlineoption", "exit", "return", "break", "continue",
    "throw", "if", "elseif", "else", "foreach", "for", "while", "do", "until", "try", "catch", "finally", "switch",
    "function", "filter", "param", "begin", "process", "end", "trap",
))
# Writers that take the path from a pipe when none is given (the others take their content from it).
PATH_FROM_PIPE = frozenset(("clear-content", "set-item", "clear-item", "set-itemproperty", "clear-itemproperty",
                            "new-itemproperty", "remove-itemproperty", "set-acl", "remove-item"))
ALIASES = {
    "sc": "set-content", "ac": "add-content", "clc": "clear-content", "tee": "tee-object", "epcsv": "export-csv",
    "ni": "new-item", "md": "new-item", "mkdir": "new-item", "ri": "remove-item", "rm": "remove-item",
    "rmdir": "remove-item", "rd": "remove-item", "del": "remove-item", "erase": "remove-item", "cp": "copy-item",
    "copy": "copy-item", "cpi": "copy-item", "mv": "move-item", "move": "move-item", "mi": "move-item",
    "ren": "rename-item", "rni": "rename-item", "rename": "rename-item", "si": "set-item", "cli": "clear-item",
    "sp": "set-itemproperty", "clp": "clear-itemproperty", "rp": "remove-itemproperty", "iwr": "invoke-webrequest",
    "curl": "invoke-webrequest", "wget": "invoke-webrequest", "irm": "invoke-restmethod", "cd": "set-location",
    "sl": "set-location", "chdir": "set-location", "pushd": "push-location", "popd": "pop-location",
    "iex": "invoke-expression", "saps": "start-process", "start": "start-process", "gci": "get-childitem",
    "ls": "get-childitem", "dir": "get-childitem", "gi": "get-item", "rvpa": "resolve-path", "echo": "write-output",
    "write": "write-output", "?": "where-object", "sort": "sort-object", "select": "select-object",
    "gc": "get-content", "cat": "get-content", "type": "get-content", "sls": "select-string", "gl": "get-location",
    "pwd": "get-location", "%": "foreach-object", "foreach": "foreach-object", "measure": "measure-object",
    "ft": "format-table", "fl": "format-list", "fw": "format-wide", "gm": "get-member", "sleep": "start-sleep",
    "cls": "clear-host", "gcm": "get-command", "gal": "get-alias", "gps": "get-process", "ps": "get-process",
    "gv": "get-variable", "sv": "set-variable", "h": "get-history", "history": "get-history", "gu": "get-unique",
    "diff": "compare-object", "compare": "compare-object", "group": "group-object", "man": "get-help",
    "help": "get-help", "gp": "get-itemproperty", "gpv": "get-itempropertyvalue", "ipcsv": "import-csv",
}
# Programs that are PowerShell themselves, or cmd.exe: the text they are given is a line to judge.
PWSH_VALUES = ("executionpolicy", "ep", "ex", "windowstyle", "w", "inputformat", "outputformat", "of",
               "configurationname", "workingdirectory", "wd", "settingsfile", "custompipename", "version", "v")
SHELLS = {"powershell": "pwsh", "pwsh": "pwsh", "powershell_ise": "pwsh", "cmd": "cmd"}

# .NET methods that write the path (or paths) given first; ``move``/``delete`` remove it.
WRITE_METHODS = frozenset((
    "writealltext", "writealllines", "writeallbytes", "appendalltext", "appendalllines", "appendtext", "createtext",
    "create", "delete", "move", "copy", "replace", "openwrite", "open", "encrypt", "decrypt", "setattributes",
    "setcreationtime", "setlastwritetime", "setlastaccesstime", "setcreationtimeutc", "setlastwritetimeutc",
    "setlastaccesstimeutc", "setaccesscontrol", "createdirectory", "createsymboliclink", "moveto", "copyto",
    "writealltextasync", "writeallbytesasync", "writealllinesasync", "appendalltextasync", "appendalllinesasync",
    "new", "write", "writeline", "save", "extracttodirectory", "createfromdirectory", "setvalue",
))
TWO_PATHS = frozenset(("move", "copy", "replace", "createsymboliclink", "extracttodirectory", "createfromdirectory"))
REMOVING = frozenset(("delete", "move", "moveto", "replace"))
