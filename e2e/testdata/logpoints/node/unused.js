'use strict';
module.exports = 1; // LP:unused
