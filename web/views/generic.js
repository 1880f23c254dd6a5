// generic.js: the page of a tool that has no page of its own yet: its
// answer as tables (DataTable JSON: sort, filter, paging, CSV) or as
// indented JSON, and an API error (501 for a tool not built yet, 422 for a
// bad file) in words.

import { showAnswer } from './lib/answer_tables.js';
import { dataPage } from './lib/page.js';

export const { mount, unmount } = dataPage({ render: showAnswer });
